package io.streamtables.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Ingest instances started at once on a new PostgreSQL service database each create its tables (channels, shard
 * leases, live instances): none may fail because another created them first.
 */
class ConcurrentStartTest {

    record Started(ChannelStore channels, ShardLeases leases) implements AutoCloseable {
        @Override
        public void close() {
        }
    }

    @Test
    void channelStoresAndLeasesStartingAtOnceOnANewDatabaseAllStart() throws Exception {
        NewDatabaseRace.run(5, 4, url -> new Started(new ChannelStore(url),
                new ShardLeases(url, "owner-" + System.nanoTime(), Duration.ofSeconds(10), System::currentTimeMillis)),
                started -> {
                    assertTrue(started.get(0).channels().all().isEmpty(), "the channels table is there, empty");
                    started.get(0).leases().heartbeat();
                    started.get(3).leases().heartbeat();
                    assertEquals(2, started.get(3).leases().liveInstances().size(), "the instances share one database");
                });
    }
}
