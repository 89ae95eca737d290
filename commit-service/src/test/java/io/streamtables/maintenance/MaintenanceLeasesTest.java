package io.streamtables.maintenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.state.TestDatabase;
import io.streamtables.state.TestDatabases;
import java.sql.SQLException;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Maintenance leases on SQLite and PostgreSQL (skipped when it does not answer), with a clock the test moves. */
class MaintenanceLeasesTest {

    private static final long DURATION = 10_000;
    private static final String CHANNEL = "arn:aws:kinesis:us-east-1:000000000000:channel/orders";
    private static final String OTHER = "arn:aws:kinesis:us-east-1:111111111111:channel/orders";
    private static final String TABLE = "catalog-0123/ns.orders";

    private final AtomicLong clock = new AtomicLong(1_700_000_000_000L);

    static Stream<String> databases() {
        return TestDatabases.both();
    }

    @AfterAll
    static void dropSchemas() throws SQLException {
        TestDatabases.dropSchemas();
    }

    @ParameterizedTest
    @MethodSource("databases")
    void oneHolderAtATimeAndEachNewHolderANewerEpoch(String database) {
        try (TestDatabase db = TestDatabase.open(TestDatabases.url(database))) {
            MaintenanceLeases a = new MaintenanceLeases(db.database(), "a", Duration.ofMillis(DURATION), clock::get);
            MaintenanceLeases b = new MaintenanceLeases(db.database(), "b", Duration.ofMillis(DURATION), clock::get);

            OptionalLong first = a.acquire(TABLE, CHANNEL);
            assertEquals(OptionalLong.of(1), first);
            assertTrue(b.acquire(TABLE, CHANNEL).isEmpty(), "held by a");
            assertEquals(first, a.acquire(TABLE, CHANNEL), "a renews its own lease at its epoch");
            clock.addAndGet(DURATION / 2);
            assertTrue(a.renew(TABLE, 1));

            clock.addAndGet(DURATION + 1); // a paused past its lease
            OptionalLong second = b.acquire(TABLE, CHANNEL);
            assertEquals(OptionalLong.of(2), second, "taken over with a newer epoch");
            assertFalse(a.renew(TABLE, 1), "the paused holder learns it lost the lease");
            assertTrue(a.acquire(TABLE, CHANNEL).isEmpty());

            b.release(TABLE, 2);
            assertEquals(OptionalLong.of(3), a.acquire(TABLE, CHANNEL), "released: free at once, at a new epoch");
            assertTrue(b.acquire(TABLE, CHANNEL).isEmpty());
            assertTrue(b.acquire(TABLE, OTHER).isEmpty(), "another channel naming the table waits for the lease");
            assertTrue(a.acquire("catalog-0123/ns.other", CHANNEL).isPresent(), "leases are per table");
        }
    }
}
