package io.streamtables.maintenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.state.TestDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Maintenance leases on SQLite and PostgreSQL (skipped when it does not answer), with a clock the test moves. */
class MaintenanceLeasesTest {

    static final String POSTGRES = System.getenv().getOrDefault("POSTGRES_URL",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    private static final long DURATION = 10_000;
    private static final List<String> SCHEMAS = new ArrayList<>();
    private static final String CHANNEL = "arn:aws:kinesis:us-east-1:000000000000:channel/orders";

    private final AtomicLong clock = new AtomicLong(1_700_000_000_000L);

    static Stream<String> databases() throws Exception {
        Path dir = Files.createTempDirectory("maintenance-leases");
        return Stream.of("jdbc:sqlite:" + dir.resolve("delivery.db"), "postgres");
    }

    private static String url(String database) {
        if (!database.equals("postgres")) {
            return database;
        }
        String schema = "st_maint_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection c = DriverManager.getConnection(POSTGRES); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
        } catch (SQLException e) {
            Assumptions.abort("no PostgreSQL answers at " + POSTGRES + ": " + e.getMessage());
        }
        SCHEMAS.add(schema);
        return POSTGRES + (POSTGRES.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    @AfterAll
    static void dropSchemas() throws SQLException {
        if (SCHEMAS.isEmpty()) {
            return;
        }
        try (Connection c = DriverManager.getConnection(POSTGRES); Statement s = c.createStatement()) {
            for (String schema : SCHEMAS) {
                s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
        }
    }

    @ParameterizedTest
    @MethodSource("databases")
    void oneHolderAtATimeAndEachNewHolderANewerEpoch(String database) {
        try (TestDatabase db = TestDatabase.open(url(database))) {
            MaintenanceLeases a = new MaintenanceLeases(db.database(), "a", Duration.ofMillis(DURATION), clock::get);
            MaintenanceLeases b = new MaintenanceLeases(db.database(), "b", Duration.ofMillis(DURATION), clock::get);

            OptionalLong first = a.acquire(CHANNEL);
            assertEquals(OptionalLong.of(1), first);
            assertTrue(b.acquire(CHANNEL).isEmpty(), "held by a");
            assertEquals(first, a.acquire(CHANNEL), "a renews its own lease at its epoch");
            clock.addAndGet(DURATION / 2);
            assertTrue(a.renew(CHANNEL, 1));

            clock.addAndGet(DURATION + 1); // a paused past its lease
            OptionalLong second = b.acquire(CHANNEL);
            assertEquals(OptionalLong.of(2), second, "taken over with a newer epoch");
            assertFalse(a.renew(CHANNEL, 1), "the paused holder learns it lost the lease");
            assertTrue(a.acquire(CHANNEL).isEmpty());

            b.release(CHANNEL, 2);
            assertEquals(OptionalLong.of(3), a.acquire(CHANNEL), "a released lease is free at once, at a new epoch");
            assertTrue(b.acquire(CHANNEL).isEmpty());
            assertTrue(a.acquire("arn:aws:kinesis:us-east-1:000000000000:channel/other").isPresent(),
                    "leases are per channel");
        }
    }
}
