package io.streamtables.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** DELETING: a channel is removed only once no stage holds a lease of it, and its leases go with it. */
class ChannelStoreTest {

    private static final String ACCOUNT = "000000000000";
    private static final String ARN = "arn:aws:kinesis:us-east-1:" + ACCOUNT + ":channel/c";
    /** No quota in these tests but {@link #aQuotaHoldsForStoresCreatingAtOnce}'s. */
    private static final int ANY = Integer.MAX_VALUE;

    @org.junit.jupiter.api.AfterAll
    static void dropSchemas() throws java.sql.SQLException {
        TestDatabases.dropSchemas();
    }

    /** The version a channel decodes with is pinned once, at its first activation, and stays. */
    @Test
    void theSchemaVersionIsPinnedOnce(@TempDir Path dir) throws Exception {
        try (TestDatabase db = TestDatabase.open("jdbc:sqlite:" + dir.resolve("d.db"))) {
            ChannelStore store = new ChannelStore(db.database());
            store.insert(new ChannelStore.Row(ARN, "c", "{}", "CREATING", null, 1, null), ACCOUNT, ANY);
            assertEquals(null, store.get(ARN).orElseThrow().schemaVersionId(), "none before the activation");
            store.pinSchemaVersion(ARN, "00000000-0000-0000-0000-000000000001");
            store.pinSchemaVersion(ARN, "00000000-0000-0000-0000-000000000002");
            assertEquals("00000000-0000-0000-0000-000000000001", store.get(ARN).orElseThrow().schemaVersionId());
        }
    }

    @Test
    void aChannelIsLeasedWhileAnIngestOrCommitInstanceHoldsALeaseOfIt(@TempDir Path dir) throws Exception {
        try (TestDatabase db = TestDatabase.open("jdbc:sqlite:" + dir.resolve("d.db"))) {
            ChannelStore store = new ChannelStore(db.database());
            store.insert(new ChannelStore.Row(ARN, "c", "{}", "DELETING", null, 1, null), ACCOUNT, ANY);
            long now = 1_000_000;
            assertFalse(store.leased(ARN, now), "no lease at all");
            Leases ingest = new Leases(db.database(), "ingest-1", Duration.ofMillis(5_000), () -> now);
            Leases commit = new Leases(db.database(), "commit-1", Duration.ofMillis(5_000), () -> now);
            ingest.take(Leases.Kind.SHARD, Leases.shardKey(ARN, "s1"), ARN);
            assertTrue(store.leased(ARN, now), "a reader holds a shard");
            assertFalse(store.leased(ARN, now + 5_000), "its lease expired: the instance died");
            ingest.release(Leases.Kind.SHARD, Leases.shardKey(ARN, "s1"));
            assertFalse(store.leased(ARN, now), "released");
            commit.take(Leases.Kind.TABLE, "catalog/ns.t", ARN);
            assertTrue(store.leased(ARN, now), "a commit instance maintains its table");
            store.delete(ARN);
            try (Connection c = db.database().connect(); Statement s = c.createStatement();
                    var rs = s.executeQuery("SELECT COUNT(*) FROM delivery_leases")) {
                assertTrue(rs.next() && rs.getLong(1) == 0, "the channel's leases went with it");
            }
            assertTrue(store.get(ARN).isEmpty());
        }
    }

    /**
     * Each update takes the next revision, and the lowest revision among the processes that read the
     * channels lately is what every stage runs with (a channel updated past it is UPDATING). On both databases.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.MethodSource("io.streamtables.state.TestDatabases#both")
    void updatesTakeRevisionsInOrderAndReadersSayWhatTheyRead(String database) throws Exception {
        try (TestDatabase db = TestDatabase.open(TestDatabases.url(database))) {
            ChannelStore store = new ChannelStore(db.database());
            String other = ARN + "-other";
            store.insert(new ChannelStore.Row(ARN, "c", "{}", "ACTIVE", null, 1, null), ACCOUNT, ANY);
            store.insert(new ChannelStore.Row(other, "o", "{}", "ACTIVE", null, 1, null), ACCOUNT, ANY);
            assertEquals(0, store.get(ARN).orElseThrow().revision(), "never updated");
            long first = store.updateDefinition(ARN, "{\"v\": 1}");
            long second = store.updateDefinition(other, "{\"v\": 2}");
            assertTrue(second > first && first > 0, first + " then " + second);
            assertEquals(first, store.get(ARN).orElseThrow().revision());
            assertEquals("{\"v\": 1}", store.get(ARN).orElseThrow().definition());

            long now = 1_000_000;
            assertEquals(java.util.OptionalLong.empty(), store.readByAll(now - 5_000), "no reader yet");
            store.read("commit-1", second, now);
            store.read("ingest-1", first, now - 1_000);
            assertEquals(java.util.OptionalLong.of(first), store.readByAll(now - 5_000), "ingest-1 has not read the second");
            store.read("ingest-1", second, now + 1_000);
            assertEquals(java.util.OptionalLong.of(second), store.readByAll(now - 5_000));
            store.read("gone", 0, now - 10_000);
            assertEquals(java.util.OptionalLong.of(second), store.readByAll(now - 5_000), "a reader not heard of lately");
        }
    }

    /**
     * Two stores on one database (two control planes), 20 threads creating one account's channels at once for the
     * last 5 places of a quota of 10: exactly 10 are stored. Before, each control plane counted its own view of the
     * channels, then inserted, and both passed the count.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.MethodSource("io.streamtables.state.TestDatabases#both")
    void aQuotaHoldsForStoresCreatingAtOnce(String database) throws Exception {
        String url = TestDatabases.url(database);
        try (TestDatabase one = TestDatabase.open(url); TestDatabase two = TestDatabase.open(url)) {
            List<ChannelStore> stores = List.of(new ChannelStore(one.database()), new ChannelStore(two.database()));
            String account = "111122223333";
            for (int i = 0; i < 5; i++) {
                assertEquals(ChannelStore.Inserted.CREATED, stores.get(0).insert(row(account, "before-" + i), account,
                        10));
            }
            java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(20);
            try {
                List<java.util.concurrent.Future<ChannelStore.Inserted>> results = new java.util.ArrayList<>();
                java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
                for (int i = 0; i < 20; i++) {
                    ChannelStore store = stores.get(i % 2);
                    String name = "racing-" + i;
                    results.add(threads.submit(() -> {
                        start.await();
                        return store.insert(row(account, name), account, 10);
                    }));
                }
                start.countDown();
                int created = 0;
                for (var result : results) {
                    created += result.get() == ChannelStore.Inserted.CREATED ? 1 : 0;
                }
                assertEquals(5, created, "created past the 5 already there");
                assertEquals(10, stores.get(1).all().size());
            } finally {
                threads.shutdownNow();
            }
        }
    }

    private static ChannelStore.Row row(String account, String name) {
        return new ChannelStore.Row("arn:aws:kinesis:us-east-1:" + account + ":channel/" + name, name, "{}", "CREATING",
                null, 1, null);
    }

    /**
     * Every write of the channels counts one change, so a process reads the rows again only when the count
     * moved; recording what a process read is no change. On both databases.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.MethodSource("io.streamtables.state.TestDatabases#both")
    void everyWriteOfTheChannelsCountsAChange(String database) throws Exception {
        try (TestDatabase db = TestDatabase.open(TestDatabases.url(database))) {
            ChannelStore store = new ChannelStore(db.database());
            java.util.List<Runnable> writes = java.util.List.of(
                    () -> store.insert(new ChannelStore.Row(ARN, "c", "{}", "CREATING", null, 1, null), ACCOUNT, ANY),
                    () -> store.setStatus(ARN, "ACTIVE", null, 2),
                    () -> store.pinSchemaVersion(ARN, "00000000-0000-0000-0000-000000000001"),
                    () -> store.updateDefinition(ARN, "{\"v\": 1}"),
                    () -> store.setDeleting(ARN),
                    () -> store.delete(ARN));
            long before = store.changes();
            for (int i = 0; i < writes.size(); i++) {
                writes.get(i).run();
                assertEquals(before + i + 1, store.changes(), "write " + i);
            }
            store.read("commit-1", 0, 1_000);
            store.all();
            assertEquals(before + writes.size(), store.changes(), "reads are no change");
        }
    }
}
