package io.streamtables.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The lease store on SQLite and PostgreSQL (skipped when it does not answer), with a clock the test moves. */
class LeasesTest {

    private static final long DURATION = 10_000;
    private static final String CHANNEL = "arn:aws:kinesis:us-east-1:000000000000:channel/orders";
    private static final String OTHER = "arn:aws:kinesis:us-east-1:111111111111:channel/orders";
    private static final String TABLE = "catalog-0123/ns.orders";

    private static final Leases.Kind TABLE_KIND = Leases.Kind.TABLE;
    private static final String SHARD = Leases.shardKey(CHANNEL, "shardId-000000000001");

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
            Leases a = new Leases(db.database(), "a", Duration.ofMillis(DURATION), clock::get);
            Leases b = new Leases(db.database(), "b", Duration.ofMillis(DURATION), clock::get);

            OptionalLong first = a.take(TABLE_KIND, TABLE, CHANNEL);
            assertEquals(OptionalLong.of(1), first);
            assertTrue(b.take(TABLE_KIND, TABLE, CHANNEL).isEmpty(), "held by a");
            assertEquals(first, a.take(TABLE_KIND, TABLE, CHANNEL), "a renews its own lease at its epoch");
            clock.addAndGet(DURATION / 2);
            assertTrue(a.renew(TABLE_KIND, TABLE, 1));

            clock.addAndGet(DURATION); // a paused until the very millisecond its lease expires
            assertFalse(a.renew(TABLE_KIND, TABLE, 1), "at its expiry, no longer a's to renew");
            OptionalLong second = b.take(TABLE_KIND, TABLE, CHANNEL);
            assertEquals(OptionalLong.of(2), second, "another's to take at its expiry, with a newer epoch");
            assertFalse(a.renew(TABLE_KIND, TABLE, 1), "the paused holder learns it lost the lease");
            assertTrue(a.take(TABLE_KIND, TABLE, CHANNEL).isEmpty());

            a.expire(TABLE_KIND, TABLE, 1); // a's lost run ends no one else's lease
            assertTrue(a.take(TABLE_KIND, TABLE, CHANNEL).isEmpty(), "still b's");
            b.expire(TABLE_KIND, TABLE, 2); // b's run ended
            assertEquals(OptionalLong.of(2), b.take(TABLE_KIND, TABLE, CHANNEL),
                    "b's next run: the same epoch, so its claim writes nothing to the table");
            b.expire(TABLE_KIND, TABLE, 2);
            assertEquals(OptionalLong.of(3), a.take(TABLE_KIND, TABLE, CHANNEL), "ended: free at once, at a new epoch");
            assertTrue(b.take(TABLE_KIND, TABLE, CHANNEL).isEmpty());
            assertTrue(b.take(TABLE_KIND, TABLE, OTHER).isEmpty(), "another channel naming the table waits for the lease");
            assertTrue(a.take(TABLE_KIND, "catalog-0123/ns.other", CHANNEL).isPresent(), "leases are per table");
        }
    }

    /** A shard lease is taken from its holder only as last seen, and a finished one by no one. */
    @ParameterizedTest
    @MethodSource("databases")
    void aShardLeaseIsTakenOverOnlyAsSeenAndNeverOnceFinished(String database) {
        try (TestDatabase db = TestDatabase.open(TestDatabases.url(database))) {
            Leases a = new Leases(db.database(), "a", Duration.ofMillis(DURATION), clock::get);
            Leases b = new Leases(db.database(), "b", Duration.ofMillis(DURATION), clock::get);
            a.offer(Leases.Kind.SHARD, SHARD, CHANNEL);
            Leases.Lease offered = a.of(Leases.Kind.SHARD, CHANNEL).get(SHARD);
            assertEquals("", offered.owner(), "offered: free");
            assertTrue(a.take(Leases.Kind.SHARD, SHARD, CHANNEL).isPresent());
            Leases.Lease seen = b.of(Leases.Kind.SHARD, CHANNEL).get(SHARD);
            assertEquals("a", seen.owner());
            assertTrue(b.take(Leases.Kind.SHARD, SHARD, CHANNEL).isEmpty(), "live: not taken");

            clock.addAndGet(1);
            assertEquals(Set.of(SHARD), a.renewAll(Leases.Kind.SHARD));
            assertFalse(b.takeFrom(seen), "renewed since seen");
            assertTrue(b.takeFrom(b.of(Leases.Kind.SHARD, CHANNEL).get(SHARD)), "taken as seen");
            assertEquals(Set.of(), a.renewAll(Leases.Kind.SHARD), "a learns it lost the lease");
            assertEquals(Set.of(SHARD), b.renewAll(Leases.Kind.SHARD));
            assertEquals(Set.of(), b.renewAll(Leases.Kind.TABLE), "kinds apart");

            b.release(Leases.Kind.SHARD, SHARD);
            a.finish(Leases.Kind.SHARD, SHARD);
            assertTrue(a.of(Leases.Kind.SHARD, CHANNEL).get(SHARD).finished());
            clock.addAndGet(10 * DURATION);
            assertTrue(a.take(Leases.Kind.SHARD, SHARD, CHANNEL).isEmpty(), "finished: no one takes it again");
            assertTrue(b.take(Leases.Kind.SHARD, SHARD, CHANNEL).isEmpty());
        }
    }

    /** The leases of a database at version 8 (a table per kind) move into the one table with their state. */
    @Test
    void theLeasesOfTheTwoFormerTablesMoveOver(@TempDir Path dir) throws Exception {
        String url = "jdbc:sqlite:" + dir.resolve("v8.db");
        Flyway.configure().dataSource(url, null, null).locations("classpath:db/service").target("8")
                .placeholders(Map.of("default_account", "000000000000")).load().migrate();
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("INSERT INTO delivery_shard_leases VALUES ('" + CHANNEL + "', 'shardId-000000000001', 'a', "
                    + (clock.get() + DURATION) + ", 0)");
            s.execute("INSERT INTO delivery_shard_leases VALUES ('" + CHANNEL + "', 'shardId-000000000000', '', 0, 1)");
            s.execute("INSERT INTO delivery_table_leases VALUES ('" + TABLE + "', '" + CHANNEL + "', 'b', "
                    + (clock.get() + DURATION) + ", 7)");
        }
        try (TestDatabase db = TestDatabase.open(url)) {
            Leases a = new Leases(db.database(), "a", Duration.ofMillis(DURATION), clock::get);
            Leases b = new Leases(db.database(), "b", Duration.ofMillis(DURATION), clock::get);
            Map<String, Leases.Lease> shards = a.of(Leases.Kind.SHARD, CHANNEL);
            assertEquals(Set.of(SHARD, Leases.shardKey(CHANNEL, "shardId-000000000000")), shards.keySet());
            assertEquals("a", shards.get(SHARD).owner());
            assertTrue(shards.get(Leases.shardKey(CHANNEL, "shardId-000000000000")).finished());
            assertEquals(OptionalLong.of(7), b.take(TABLE_KIND, TABLE, CHANNEL), "the holder keeps its epoch");
            assertTrue(a.take(TABLE_KIND, TABLE, CHANNEL).isEmpty(), "still b's");
            assertTrue(new ChannelStore(db.database()).leased(CHANNEL, clock.get()));
        }
    }
}
