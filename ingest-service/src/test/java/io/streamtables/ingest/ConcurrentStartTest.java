package io.streamtables.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.state.ChannelStore;
import io.streamtables.state.NewDatabaseRace;
import io.streamtables.state.TestDatabase;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Instances started at once on a new PostgreSQL service database each migrate it (channels, shard leases, live
 * instances, registry): none may fail because another created the tables first.
 */
class ConcurrentStartTest {

    record Started(TestDatabase database, ChannelStore channels, ShardLeases leases) implements AutoCloseable {
        static Started on(String url) {
            TestDatabase database = TestDatabase.open(url); // Flyway migrates, each instance on its own pool
            return new Started(database, new ChannelStore(database.database()), new ShardLeases(database.database(),
                    "owner-" + System.nanoTime(), Duration.ofSeconds(10), System::currentTimeMillis));
        }

        @Override
        public void close() {
            database.close();
        }
    }

    @Test
    void channelStoresAndLeasesStartingAtOnceOnANewDatabaseAllStart() throws Exception {
        NewDatabaseRace.run(5, 4, Started::on, started -> {
            assertTrue(started.get(0).channels().all().isEmpty(), "the channels table is there, empty");
            started.get(0).leases().heartbeat();
            started.get(3).leases().heartbeat();
            assertEquals(2, started.get(3).leases().liveInstances().size(), "the instances share one database");
        });
    }
}
