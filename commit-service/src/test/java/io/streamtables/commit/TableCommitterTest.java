package io.streamtables.commit;

import static io.streamtables.commit.CommitFixture.SHARD;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.catalog.DeliveryTables;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Exactly-once commits: merged watermarks, idempotent retries, compare-and-set against zombies. */
class TableCommitterTest {

    private static final String SHARD_2 = "shardId-000000000002";

    @TempDir
    Path dir;

    private CommitFixture f;

    @BeforeEach
    void setUp() {
        f = new CommitFixture(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    private static List<Long> range(long first, long last) {
        return LongStream.rangeClosed(first, last).boxed().toList();
    }

    @Test
    void commitsFilesAndMergedWatermarks() {
        ChannelBuffer buffer = f.buffer();
        buffer.append(f.chunk(null, 1, 3));
        PendingCommit first = buffer.cut();
        assertTrue(TableCommitter.commit(f.table, first));
        buffer.committed(first);
        assertEquals(Map.of(SHARD, "3"), f.watermarks());
        assertEquals("{\"" + SHARD + "\":\"3\"}",
                f.table.currentSnapshot().summary().get(DeliveryTables.WATERMARKS_PROPERTY));

        // a cut that advances only the other shard keeps the first shard's watermark
        buffer.append(f.chunk(SHARD_2, null, List.of(f.row("10", "2024-05-01T10:00:00Z")), List.of()));
        PendingCommit second = buffer.cut();
        assertEquals(Map.of(SHARD_2, "10"), second.advanced());
        assertTrue(TableCommitter.commit(f.table, second));
        assertEquals(Map.of(SHARD, "3", SHARD_2, "10"), f.watermarks());
        assertEquals(List.of(1L, 2L, 3L, 10L), f.ids());
    }

    @Test
    void sameCutTwiceIsCommittedOnce() {
        ChannelBuffer buffer = f.buffer();
        buffer.append(f.chunk(null, 1, 4));
        PendingCommit cut = buffer.cut();
        assertTrue(TableCommitter.commit(f.table, cut));
        long snapshot = f.table.currentSnapshot().snapshotId();

        assertFalse(TableCommitter.commit(f.table, cut), "a retry of a landed commit");
        f.table.refresh();
        assertEquals(snapshot, f.table.currentSnapshot().snapshotId());
        assertEquals(range(1, 4), f.ids());
    }

    @Test
    void staleExpectedWatermarkIsAZombie() {
        ChannelBuffer zombie = f.buffer();
        ChannelBuffer owner = f.buffer();
        zombie.append(f.chunk(null, 1, 3));
        owner.append(f.chunk(null, 1, 5));
        assertTrue(TableCommitter.commit(f.table, owner.cut()));
        long snapshot = f.table.currentSnapshot().snapshotId();

        PendingCommit stale = zombie.cut();
        assertEquals(Map.of(SHARD, "3"), stale.advanced());
        assertThrows(TableCommitter.ZombieCommitException.class, () -> TableCommitter.commit(f.table, stale));

        f.table.refresh();
        assertEquals(snapshot, f.table.currentSnapshot().snapshotId());
        assertEquals(Map.of(SHARD, "5"), f.watermarks());
        assertEquals(range(1, 5), f.ids());
    }

    /** The compare-and-set is checked before the cut's dead letters are written (CommitService.commit). */
    @Test
    void aZombieIsKnownBeforeItsDeadLettersAreWritten() {
        ChannelBuffer zombie = f.buffer();
        ChannelBuffer owner = f.buffer();
        zombie.append(f.chunk(null, 1, 3));
        PendingCommit stale = zombie.cut();
        PendingCommit landed = owner.cut();
        owner.append(f.chunk(null, 1, 5));
        PendingCommit owners = owner.cut();
        TableCommitter.checkExpected(f.table, owners); // nothing committed yet: both may go on
        TableCommitter.checkExpected(f.table, stale);
        assertTrue(TableCommitter.commit(f.table, owners));

        f.table.refresh();
        assertThrows(TableCommitter.ZombieCommitException.class, () -> TableCommitter.checkExpected(f.table, stale));
        TableCommitter.checkExpected(f.table, owners); // a retry of a landed cut is not a zombie
        TableCommitter.checkExpected(f.table, landed); // an empty cut expects nothing
    }

    /**
     * An attempt whose outcome was unknown landed, and the shard's next writer committed on top of it before the
     * retry: the retry sees its own commit (by the cut's id), not a zombie, so its files are not dropped. With the
     * watermarks alone it was taken for a zombie, and dropping the cut deleted data files the table held.
     */
    @Test
    void aLandedCutIsKnownByItsIdWhateverCameAfter() {
        ChannelBuffer first = f.buffer();
        first.append(f.chunk(null, 1, 3));
        PendingCommit landed = first.cut();
        assertTrue(TableCommitter.commit(f.table, landed)); // its caller saw CommitStateUnknownException
        ChannelBuffer next = f.buffer();
        next.append(f.chunk("3", 4, 6));
        assertTrue(TableCommitter.commit(f.table, next.cut()));

        f.table.refresh();
        TableCommitter.checkExpected(f.table, landed);
        assertFalse(TableCommitter.commit(f.table, landed), "the retry of a landed cut");
        assertEquals(Map.of(SHARD, "6"), f.watermarks());
        assertEquals(range(1, 6), f.ids());
    }

    @Test
    void watermarksSurviveASnapshotWithoutThem() {
        ChannelBuffer buffer = f.buffer();
        buffer.append(f.chunk(null, 1, 2));
        PendingCommit first = buffer.cut();
        assertTrue(TableCommitter.commit(f.table, first));
        buffer.committed(first);
        f.table.newAppend().commit(); // e.g. table maintenance: no watermarks in its summary

        buffer.append(f.chunk("2", 3, 3));
        assertTrue(TableCommitter.commit(f.table, buffer.cut()));
        assertEquals(Map.of(SHARD, "3"), f.watermarks());
        assertEquals(range(1, 3), f.ids());
    }

    @Test
    void zombieCheckUsesTheTableNotACachedInstance() {
        // the committer's Table object is separate from the one the other writer commits through
        Table mine = f.catalog.loadTable(f.channel.table());
        ChannelBuffer zombie = f.buffer();
        zombie.append(f.chunk(null, 1, 3));
        PendingCommit stale = zombie.cut();

        ChannelBuffer owner = f.buffer();
        owner.append(f.chunk(null, 1, 2));
        assertTrue(TableCommitter.commit(f.table, owner.cut()));

        assertThrows(TableCommitter.ZombieCommitException.class, () -> TableCommitter.commit(mine, stale));
        assertEquals(Map.of(SHARD, "2"), f.watermarks());
    }

    /** SPEC C4: files written under the channel's spec are not committed once the spec changed outside. */
    @Test
    void aPartitionSpecChangedOutsideIsRefused() {
        ChannelBuffer buffer = f.buffer();
        buffer.append(f.chunk(null, 1, 3));
        PendingCommit cut = buffer.cut();
        f.catalog.loadTable(f.channel.table()).updateSpec().removeField("ts_hour").addField(Expressions.day("ts"))
                .commit();

        TableOpener.IncompatibleTableException e = assertThrows(TableOpener.IncompatibleTableException.class,
                () -> TableCommitter.commit(f.table, cut));
        assertTrue(e.getMessage().contains("partition spec"), e.getMessage());
        assertEquals(List.of(), f.ids());
        // and a restart does not open the table again
        e = assertThrows(TableOpener.IncompatibleTableException.class,
                () -> TableOpener.open(f.catalog, f.channel, f.schema));
        assertTrue(e.getMessage().contains("not hour(ts)"), e.getMessage());
    }

    @Test
    void aPartitionColumnRenamedOrRetypedIsReported() {
        assertEquals(null, DeliveryTables.partitionProblem(f.table, "ts"));
        f.table.updateSchema().renameColumn("ts", "ts2").commit();
        f.table.refresh();
        assertTrue(DeliveryTables.partitionProblem(f.table, "ts").contains("dropped or renamed"));
        assertTrue(DeliveryTables.partitionProblem(f.table, "note").contains("is now string"));
    }
}
