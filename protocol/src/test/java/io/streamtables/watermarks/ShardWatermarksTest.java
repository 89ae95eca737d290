package io.streamtables.watermarks;

import static io.streamtables.watermarks.WatermarksFixture.MANIFESTS;
import static io.streamtables.watermarks.WatermarksFixture.SHARD;
import static io.streamtables.watermarks.WatermarksFixture.SHARD_2;
import static io.streamtables.watermarks.WatermarksFixture.STREAM;
import static io.streamtables.watermarks.WatermarksFixture.STREAM_B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.watermarks.WatermarksFixture.TestCut;
import java.nio.file.Path;
import java.sql.SQLTransientConnectionException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.jdbc.UncheckedSQLException;
import org.apache.iceberg.relocated.com.google.common.collect.Iterables;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Exactly-once commits: merged watermarks, idempotent retries, compare-and-set against zombies. */
class ShardWatermarksTest {

    @TempDir
    Path dir;

    private WatermarksFixture f;

    @BeforeEach
    void setUp() {
        f = new WatermarksFixture(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    @Test
    void commitsFilesAndMergedWatermarks() {
        assertTrue(ShardWatermarks.commit(f.table, f.cut(null, "3", 1, 2, 3), MANIFESTS));
        assertEquals(Map.of(SHARD, "3"), f.watermarks());
        f.table.refresh();
        assertEquals("{\"" + STREAM + "/" + SHARD + "\":\"3\"}",
                f.table.properties().get(Checkpoint.WATERMARKS_PROPERTY), "keyed by stream and shard");
        assertEquals(f.table.properties().get(Checkpoint.WATERMARKS_PROPERTY),
                f.table.currentSnapshot().summary().get(Checkpoint.WATERMARKS_PROPERTY), "a copy, as history");

        // a cut that advances only the other shard keeps the first shard's watermark
        Map<String, String> none = new HashMap<>();
        none.put(SHARD_2, null);
        assertTrue(ShardWatermarks.commit(f.table, f.cut(none, Map.of(SHARD_2, "10"), 10), MANIFESTS));
        assertEquals(Map.of(SHARD, "3", SHARD_2, "10"), f.watermarks());
        assertEquals(List.of(1L, 2L, 3L, 10L), f.ids());
    }

    @Test
    void sameCutTwiceIsCommittedOnce() {
        TestCut cut = f.cut(null, "4", 1, 2, 3, 4);
        assertTrue(ShardWatermarks.commit(f.table, cut, MANIFESTS));
        long snapshot = f.table.currentSnapshot().snapshotId();

        assertFalse(ShardWatermarks.commit(f.table, cut, MANIFESTS), "a retry of a landed commit");
        f.table.refresh();
        assertEquals(snapshot, f.table.currentSnapshot().snapshotId());
        assertEquals(List.of(1L, 2L, 3L, 4L), f.ids());
    }

    @Test
    void staleExpectedWatermarkIsAZombie() {
        TestCut stale = f.cut(null, "3", 1, 2, 3);
        assertTrue(ShardWatermarks.commit(f.table, f.cut(null, "5", 1, 2, 3, 4, 5), MANIFESTS));
        long snapshot = f.table.currentSnapshot().snapshotId();

        assertThrows(ZombieCommitException.class, () -> ShardWatermarks.commit(f.table, stale, MANIFESTS));

        f.table.refresh();
        assertEquals(snapshot, f.table.currentSnapshot().snapshotId());
        assertEquals(Map.of(SHARD, "5"), f.watermarks());
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L), f.ids());
    }

    /** The compare-and-set is checked before the cut's dead letters are written (ChannelDelivery.commit). */
    @Test
    void aZombieIsKnownBeforeItsDeadLettersAreWritten() {
        TestCut stale = f.cut(null, "3", 1, 2, 3);
        TestCut owners = f.cut(null, "5", 1, 2, 3, 4, 5);
        TestCut empty = f.cut(Map.of(), Map.of());
        ShardWatermarks.check(f.table, owners); // nothing committed yet: both may go on
        ShardWatermarks.check(f.table, stale);
        assertTrue(ShardWatermarks.commit(f.table, owners, MANIFESTS));

        f.table.refresh();
        assertThrows(ZombieCommitException.class, () -> ShardWatermarks.check(f.table, stale));
        ShardWatermarks.check(f.table, owners); // a retry of a landed cut is not a zombie
        ShardWatermarks.check(f.table, empty); // an empty cut expects nothing
    }

    /**
     * An attempt whose outcome was unknown landed, and the shard's next writer committed on top of it before the
     * retry: the retry sees its own commit (by the cut's id), not a zombie, so its files are not dropped. With the
     * watermarks alone it was taken for a zombie, and dropping the cut deleted data files the table held.
     */
    @Test
    void aLandedCutIsKnownByItsIdWhateverCameAfter() {
        TestCut landed = f.cut(null, "3", 1, 2, 3);
        assertTrue(ShardWatermarks.commit(f.table, landed, MANIFESTS)); // its caller saw CommitStateUnknownException
        assertTrue(ShardWatermarks.commit(f.table, f.cut("3", "6", 4, 5, 6), MANIFESTS));

        f.table.refresh();
        ShardWatermarks.check(f.table, landed);
        assertTrue(ShardWatermarks.holds(f.table, landed.id()));
        assertFalse(ShardWatermarks.commit(f.table, landed, MANIFESTS), "the retry of a landed cut");
        assertEquals(Map.of(SHARD, "6"), f.watermarks());
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L), f.ids());
    }

    @Test
    void watermarksSurviveASnapshotWithoutThem() {
        assertTrue(ShardWatermarks.commit(f.table, f.cut(null, "2", 1, 2), MANIFESTS));
        f.table.newAppend().commit(); // e.g. table maintenance: no watermarks in its summary

        assertEquals(Map.of(SHARD, "2"), f.watermarks());
        assertTrue(ShardWatermarks.commit(f.table, f.cut("2", "3", 3), MANIFESTS));
        assertEquals(Map.of(SHARD, "3"), f.watermarks());
        assertEquals(List.of(1L, 2L, 3L), f.ids());
    }

    /**
     * A foreign compaction (RewriteFiles, no summary of ours) and Iceberg's own expiration keeping only the last
     * snapshot leave no delivery snapshot; the checkpoint, in the table's properties, is intact. Watermarks kept only
     * in snapshot summaries would be gone, and the stream read again from the start.
     */
    @Test
    void theCheckpointSurvivesCompactionAndExpiration() {
        assertTrue(ShardWatermarks.commit(f.table, f.cut(null, "3", 1, 2, 3), MANIFESTS));
        TestCut last = f.cut("3", "5", 4, 5);
        assertTrue(ShardWatermarks.commit(f.table, last, MANIFESTS));
        f.table.newRewrite().rewriteFiles(f.dataFiles(), Set.of(f.dataFile(1, 2, 3, 4, 5))).commit();
        f.table.expireSnapshots().expireOlderThan(System.currentTimeMillis() + 1).retainLast(1).commit();

        f.table.refresh();
        assertEquals(1, Iterables.size(f.table.snapshots()));
        assertEquals(null, f.table.currentSnapshot().summary().get(Checkpoint.WATERMARKS_PROPERTY));
        assertEquals(Map.of(SHARD, "5"), f.watermarks());
        assertTrue(ShardWatermarks.holds(f.table, last.id()), "its snapshot expired, the cut is still known");
        assertThrows(ZombieCommitException.class, () -> ShardWatermarks.commit(f.table, f.cut("3", "9", 9), MANIFESTS));
        assertTrue(ShardWatermarks.commit(f.table, f.cut("5", "6", 6), MANIFESTS));
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L), f.ids());
    }

    /** A compaction built before a delivery and committed after it is applied on top: the watermarks stay. */
    @Test
    void aCompactionCommittedAfterADeliveryKeepsItsWatermarks() {
        assertTrue(ShardWatermarks.commit(f.table, f.cut(null, "2", 1, 2), MANIFESTS));
        Table maintainer = f.catalog.loadTable(WatermarksFixture.TABLE);
        RewriteFiles compaction = maintainer.newRewrite().rewriteFiles(f.dataFiles(), Set.of(f.dataFile(1, 2)));
        assertTrue(ShardWatermarks.commit(f.table, f.cut("2", "4", 3, 4), MANIFESTS));

        compaction.commit();
        f.table.refresh();
        assertEquals("replace", f.table.currentSnapshot().operation());
        assertEquals("{\"" + STREAM + "/" + SHARD + "\":\"4\"}",
                f.table.properties().get(Checkpoint.WATERMARKS_PROPERTY));
        assertEquals(Map.of(SHARD, "4"), f.watermarks());
        assertEquals(List.of(1L, 2L, 3L, 4L), f.ids());
    }

    /** A landed cut whose shard's new owner committed more than the last ids kept is known by its snapshot. */
    @Test
    void aLandedCutIsKnownBeyondTheRecentIds() {
        TestCut landed = f.cut(null, "1", 1);
        assertTrue(ShardWatermarks.commit(f.table, landed, MANIFESTS));
        for (int i = 2; i <= Checkpoint.RECENT_CUTS + 2; i++) {
            assertTrue(ShardWatermarks.commit(f.table, f.cut(String.valueOf(i - 1), String.valueOf(i), i), MANIFESTS));
        }
        f.table.refresh();
        assertTrue(ShardWatermarks.holds(f.table, landed.id()), "its files would be deleted as a zombie's");
        assertFalse(ShardWatermarks.commit(f.table, landed, MANIFESTS));
    }

    /**
     * An attempt the catalog may have applied is reported as such, not retried here into a later refusal: its caller
     * must keep the cut's files until the table shows whether it landed.
     */
    @Test
    void anUnknownAttemptIsReportedThoughTheNextWouldBeRefused() {
        Table loaded = f.catalog.loadTable(WatermarksFixture.TABLE);
        AtomicInteger attempts = new AtomicInteger();
        Table catalog = new BaseTable(new ForwardingOperations(((HasTableOperations) loaded).operations()) {
            @Override
            public void commit(TableMetadata base, TableMetadata metadata) {
                if (attempts.incrementAndGet() == 1) {
                    throw new CommitStateUnknownException(new RuntimeException("Service failed: 504"));
                }
                throw new CommitFailedException("another writer committed first");
            }
        }, loaded.name());
        TestCut cut = f.cut(null, "3", 1, 2, 3);
        assertThrows(CommitStateUnknownException.class, () -> ShardWatermarks.commit(catalog, cut, MANIFESTS));
    }

    /** A JDBC catalog reports a connection lost during the commit as an error of its own: the outcome is unknown. */
    @Test
    void aConnectionLostDuringTheCommitIsAnUnknownOutcome() {
        TestCut cut = f.cut(null, "3", 1, 2, 3);
        Table loaded = f.catalog.loadTable(WatermarksFixture.TABLE);
        Table catalog = new BaseTable(new ForwardingOperations(((HasTableOperations) loaded).operations()) {
            @Override
            public void commit(TableMetadata base, TableMetadata metadata) {
                super.commit(base, metadata);
                throw new UncheckedSQLException(new SQLTransientConnectionException("connection reset"),
                        "Database Connection failed");
            }
        }, loaded.name());
        assertThrows(CommitStateUnknownException.class, () -> ShardWatermarks.commit(catalog, cut, MANIFESTS));
        assertFalse(ShardWatermarks.commit(f.table, cut, MANIFESTS), "the retry finds it landed");
        assertEquals(Map.of(SHARD, "3"), f.watermarks());
        assertEquals(List.of(1L, 2L, 3L), f.ids());
    }

    /** Tables of earlier releases: the checkpoint is in the summaries, and the first commit carries it over. */
    @Test
    void aCheckpointInSummariesIsReadAndCarriedOver() {
        f.table.newAppend().appendFile(f.dataFile(1, 2))
                .set(Checkpoint.WATERMARKS_PROPERTY, "{\"" + SHARD + "\":\"2\"}").set(Checkpoint.COMMIT_ID_PROPERTY, "an-earlier-release").commit();
        assertEquals(Map.of(SHARD, "2"), f.watermarks());
        assertThrows(ZombieCommitException.class, () -> ShardWatermarks.commit(f.table, f.cut(null, "3", 3), MANIFESTS));
        assertTrue(ShardWatermarks.commit(f.table, f.cut("2", "3", 3), MANIFESTS));
        f.table.refresh();
        assertEquals("{\"" + STREAM + "/" + SHARD + "\":\"3\"}",
                f.table.properties().get(Checkpoint.WATERMARKS_PROPERTY), "written keyed by stream and shard");

        // an instance of the earlier release, still running, commits after: its summary is the newer checkpoint
        f.table.newAppend().appendFile(f.dataFile(4))
                .set(Checkpoint.WATERMARKS_PROPERTY, "{\"" + SHARD + "\":\"4\"}").set(Checkpoint.COMMIT_ID_PROPERTY, "the-earlier-release-again").commit();
        assertEquals(Map.of(SHARD, "4"), f.watermarks());
        assertTrue(ShardWatermarks.commit(f.table, f.cut("4", "5", 5), MANIFESTS));
        assertEquals(Map.of(SHARD, "5"), f.watermarks());
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L), f.ids());
    }

    @Test
    void zombieCheckUsesTheTableNotACachedInstance() {
        // the committer's Table object is separate from the one the other writer commits through
        Table mine = f.catalog.loadTable(WatermarksFixture.TABLE);
        TestCut stale = f.cut(null, "3", 1, 2, 3);
        assertTrue(ShardWatermarks.commit(f.table, f.cut(null, "2", 1, 2), MANIFESTS));

        assertThrows(ZombieCommitException.class, () -> ShardWatermarks.commit(mine, stale, MANIFESTS));
        assertEquals(Map.of(SHARD, "2"), f.watermarks());
        assertEquals(List.of(1L, 2L), f.ids());
    }

    /** Each shard keeps the file of its last commit's dead letters until its next commit with dead letters. */
    @Test
    void stagedDeadLettersAreKeptPerShard() {
        assertTrue(ShardWatermarks.commit(f.table, f.cut(null, "3", 1, 2).withDeadLetters(SHARD, "dl-1.jsonl"), MANIFESTS));
        Map<String, String> none = new HashMap<>();
        none.put(SHARD_2, null);
        assertTrue(ShardWatermarks.commit(f.table,
                f.cut(none, Map.of(SHARD_2, "9"), 8).withDeadLetters(SHARD_2, "dl-2.jsonl"), MANIFESTS));
        assertTrue(ShardWatermarks.commit(f.table, f.cut("3", "5", 4, 5), MANIFESTS));
        f.table.refresh();
        assertEquals(Map.of(SHARD, "dl-1.jsonl", SHARD_2, "dl-2.jsonl"), f.stagedDeadLetters(STREAM));

        assertTrue(ShardWatermarks.commit(f.table, f.cut("5", "7", 6).withDeadLetters(SHARD, "dl-3.jsonl"), MANIFESTS));
        f.table.refresh();
        assertEquals(Map.of(SHARD, "dl-3.jsonl", SHARD_2, "dl-2.jsonl"), f.stagedDeadLetters(STREAM));
        assertEquals(Map.of(SHARD, "7", SHARD_2, "9"), f.watermarks());
    }

    /**
     * A channel deleted and created again under its name on another stream delivers into the same table: the second
     * stream's shards have the first's ids. Each stream keeps its own positions; the second's start afresh.
     */
    @Test
    void twoStreamsKeepTheirPositionsOfOneShardIdApart() {
        assertTrue(ShardWatermarks.commit(f.table, f.cut(STREAM, null, "300", 1, 2, 3), MANIFESTS));
        assertTrue(ShardWatermarks.commit(f.table, f.cut(STREAM_B, null, "2", 4, 5), MANIFESTS));
        assertEquals(Map.of(SHARD, "300"), f.watermarks(STREAM));
        assertEquals(Map.of(SHARD, "2"), f.watermarks(STREAM_B));

        assertThrows(ZombieCommitException.class,
                () -> ShardWatermarks.commit(f.table, f.cut(STREAM_B, "300", "301", 6), MANIFESTS), "the first stream's position");
        assertTrue(ShardWatermarks.commit(f.table, f.cut(STREAM_B, "2", "3", 6), MANIFESTS));
        assertEquals(Map.of(SHARD, "300"), f.watermarks(STREAM));
        assertEquals(Map.of(SHARD, "3"), f.watermarks(STREAM_B));
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L), f.ids());
    }

    /**
     * A commit instance that still holds a cut of the first stream after the channel moved to the second (a zombie)
     * commits it as the first stream's, whose positions it started from; the second stream's never move.
     */
    @Test
    void aCutOfTheEarlierStreamNeverMovesTheNewStreamsPositions() {
        assertTrue(ShardWatermarks.commit(f.table, f.cut(STREAM, null, "5", 1, 2, 3, 4, 5), MANIFESTS));
        TestCut zombie = f.cut(STREAM, "5", "7", 6, 7); // cut before the channel was deleted, committed after
        TestCut stale = f.cut(STREAM, null, "5", 1, 2, 3, 4, 5); // another, read again from the start
        assertTrue(ShardWatermarks.commit(f.table, f.cut(STREAM_B, null, "2", 21, 22), MANIFESTS));

        assertThrows(ZombieCommitException.class, () -> ShardWatermarks.commit(f.table, stale, MANIFESTS));
        assertTrue(ShardWatermarks.commit(f.table, zombie, MANIFESTS));
        assertEquals(Map.of(SHARD, "7"), f.watermarks(STREAM));
        assertEquals(Map.of(SHARD, "2"), f.watermarks(STREAM_B));
        assertTrue(ShardWatermarks.commit(f.table, f.cut(STREAM_B, "2", "3", 23), MANIFESTS));
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 21L, 22L, 23L), f.ids());
    }

    /**
     * An earlier release keyed the checkpoint by shard id alone: its entries are the stream of the channel that reads
     * them, and the next commit writes them qualified, so that another stream never takes them for its own.
     */
    @Test
    void anEarlierReleasesKeysAreReadAsTheStreamsAndWrittenQualified() {
        f.table.updateProperties()
                .set(Checkpoint.WATERMARKS_PROPERTY, "{\"" + SHARD + "\":\"2\",\"" + SHARD_2 + "\":\"9\"}")
                .set(Checkpoint.DEAD_LETTERS_PROPERTY, "{\"" + SHARD_2 + "\":\"dl-0.jsonl\"}")
                .set(Checkpoint.CUT_IDS_PROPERTY, "{\"" + SHARD + "\":[\"an-earlier-cut\"]}").commit();
        assertEquals(Map.of(SHARD, "2", SHARD_2, "9"), f.watermarks(STREAM));
        assertEquals(Map.of(SHARD_2, "dl-0.jsonl"), f.stagedDeadLetters(STREAM));
        assertEquals(Set.of("dl-0.jsonl"), f.stagedDeadLetterFiles());

        assertTrue(ShardWatermarks.commit(f.table, f.cut(STREAM, "2", "3", 3), MANIFESTS));
        f.table.refresh();
        assertEquals("{\"" + STREAM + "/" + SHARD + "\":\"3\",\"" + STREAM + "/" + SHARD_2 + "\":\"9\"}",
                f.table.properties().get(Checkpoint.WATERMARKS_PROPERTY));
        assertEquals("{\"" + STREAM + "/" + SHARD_2 + "\":\"dl-0.jsonl\"}",
                f.table.properties().get(Checkpoint.DEAD_LETTERS_PROPERTY));
        assertTrue(ShardWatermarks.holds(f.table, "an-earlier-cut"));
        assertEquals(Map.of(SHARD, "3", SHARD_2, "9"), f.watermarks(STREAM));
        assertEquals(Map.of(), f.watermarks(STREAM_B), "the channel created again on another stream");
        assertEquals(Map.of(), f.stagedDeadLetters(STREAM_B));
        assertEquals(Set.of("dl-0.jsonl"), f.stagedDeadLetterFiles());
    }

    /**
     * The staged dead letters of a channel's earlier stream stay named after it moved to another: whoever sweeps
     * publishes them, and the orphan cleanup leaves them.
     */
    @Test
    void anotherStreamsStagedDeadLettersAreStillListed() {
        assertTrue(ShardWatermarks.commit(f.table, f.cut(STREAM, null, "300", 1, 2).withDeadLetters(SHARD, "dl-a.jsonl"), MANIFESTS));
        assertTrue(ShardWatermarks.commit(f.table, f.cut(STREAM_B, null, "2", 3).withDeadLetters(SHARD, "dl-b.jsonl"), MANIFESTS));
        assertEquals(Map.of(SHARD, "dl-a.jsonl"), f.stagedDeadLetters(STREAM));
        assertEquals(Map.of(SHARD, "dl-b.jsonl"), f.stagedDeadLetters(STREAM_B));
        assertEquals(Set.of("dl-a.jsonl", "dl-b.jsonl"), f.stagedDeadLetterFiles());
    }

    /** SPEC C4: files written under the channel's spec are not committed once the spec changed outside. */
    @Test
    void aPartitionSpecChangedOutsideIsRefused() {
        TestCut cut = f.cut(null, "3", 1, 2, 3);
        f.catalog.loadTable(WatermarksFixture.TABLE).updateSpec().removeField("ts_hour").addField(Expressions.day("ts"))
                .commit();

        f.table.refresh();
        assertThrows(IncompatibleTableException.class, () -> ShardWatermarks.check(f.table, cut));
        IncompatibleTableException e = assertThrows(IncompatibleTableException.class,
                () -> ShardWatermarks.commit(f.table, cut, MANIFESTS));
        assertTrue(e.getMessage().contains("partition spec"), e.getMessage());
        assertEquals(List.of(), f.ids());
        assertEquals(Map.of(), f.watermarks());
    }
}
