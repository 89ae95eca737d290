package io.streamtables.watermarks;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.UpdateProperties;
import org.apache.iceberg.exceptions.CleanableFailure;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;

/**
 * Exactly once, in one place. A shard's watermark is the last sequence number whose record is in the table or in
 * the DLQ; the table is the only checkpoint: the watermarks are committed in the same commit as the data, as table
 * properties that no maintenance expires or rewrites ({@link Checkpoint}). A shard is one of a stream's: every
 * reader asks for the stream it reads, and a cut names the stream whose shards it moves, since a channel created
 * again on another stream writes into the same table and that stream's shards have the same ids.
 * <ol>
 * <li><b>Read</b> ({@link #committed}): a shard reader resumes after its watermark, a commit instance counts a
 *     shard's progress from it.
 * <li><b>Accept or drop</b> ({@link ShardProgress#accept}): a commit instance takes a chunk only if it continues
 *     what it holds of the shard; records at or below its high mark are replays and dropped, and a gap (records
 *     missing) asks the reader to read again after the mark: a rewind, which travels on the bus's {@code rewinds}
 *     topic in both modes.
 * <li><b>Compare and set</b> ({@link #check}, {@link #commit}): a cut lands only if the table still holds the
 *     watermarks it started from; otherwise another instance took the shard over and the cut is dropped
 *     ({@link ZombieCommitException}). The check comes before the cut's dead letters are staged (their DLQ keys are
 *     those the shard's new owner writes from the same watermark), and the commit checks again on the very metadata
 *     version it appends to ({@link PinnedOperations}). A cut's id beside its shards' watermarks makes a retry after
 *     an unknown outcome a no-op.
 * </ol>
 * Iceberg's own commit retry is off for the tables (it would re-apply a stale watermark map); {@link #commit}
 * refreshes, re-checks and rebuilds the map instead after the catalog's compare-and-swap refused it, and leaves an
 * attempt whose outcome is unknown to its caller. A maintenance commit (compaction, expiration, an engine's)
 * carries the properties of the metadata it is applied to, so it never moves or regresses them, and a delivery
 * racing it either lands first (the maintenance commit is applied on top) or fails the catalog's compare-and-swap
 * and is rebuilt on the maintained table.
 */
public final class ShardWatermarks {

    static final int MAX_CONFLICT_RETRIES = 10;

    /**
     * What a cut commits: its data files and, per shard of its stream, the watermark it started from and the one it
     * moves to.
     */
    public interface Cut {
        /** Unique per cut: the snapshot that holds it says so. */
        String id();

        /** The stream whose shards the maps below name: the one its records were read from. */
        String streamArn();

        List<DataFile> files();

        /** Shard id → the watermark the table must still hold (null: none yet). */
        Map<String, String> expected();

        /** Shard id → the watermark the cut moves it to. */
        Map<String, String> advanced();

        /** Shard id → the file holding the dead letters this cut moves the shard's watermark past, if any. */
        Map<String, String> stagedDeadLetters();

        /**
         * The channel whose table this must still be ({@code delivery.channel-arn}), or null when none is named:
         * two channels that adopted one table at once may not both write its one checkpoint.
         */
        default String channelArn() {
            return null;
        }
    }

    private ShardWatermarks() {
    }

    /** The stream's shard id → last sequence number in the table or the DLQ; empty before its first commit. */
    public static Map<String, String> committed(Table table, String streamArn) {
        return Checkpoint.read(table).watermarks(streamArn);
    }

    /**
     * The stream's shard id → the file of dead letters its last commit with rejects staged (see
     * {@link Cut#stagedDeadLetters}).
     */
    public static Map<String, String> stagedDeadLetters(Table table, String streamArn) {
        return Checkpoint.read(table).deadLetters(streamArn);
    }

    /**
     * Every staged file the checkpoint names, of every stream the table's channel read: a channel created again on
     * another stream leaves its earlier stream's to be published, and kept until they are.
     */
    public static Set<String> stagedDeadLetterFiles(Table table) {
        return Checkpoint.read(table).deadLetterFiles();
    }

    /**
     * When the snapshot that holds the checkpoint was committed, if a snapshot holds it: a table whose last
     * delivery was by an earlier release keeps its checkpoint in that snapshot's summary, which expiration must keep.
     */
    public static java.util.OptionalLong checkpointSnapshotMillis(Table table) {
        org.apache.iceberg.Snapshot s = Checkpoint.checkpointSnapshot(table);
        return s == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(s.timestampMillis());
    }

    /** True when the table holds the cut of that id (an attempt whose outcome was unknown landed). */
    public static boolean holds(Table table, String cutId) {
        return Checkpoint.read(table).holds(cutId) || Checkpoint.inHistory(table, cutId);
    }

    /**
     * The checks alone, on the table as last refreshed, before anything of the cut is written: its files fit the
     * table's partition spec, and the table holds the watermarks it started from (or the cut itself).
     *
     * @throws ZombieCommitException when the table moved past the cut's starting watermarks
     * @throws IncompatibleTableException when the table's partition spec changed under the files
     */
    public static void check(Table table, Cut cut) {
        checkSpec(table, cut);
        Checkpoint.State checkpoint = Checkpoint.read(table);
        if (!checkpoint.holds(cut.id()) && !Checkpoint.inHistory(table, cut.id())) {
            checkExpected(checkpoint.watermarks(cut.streamArn()), cut);
        }
    }

    /**
     * Commits the cut exactly once: its files, the merged watermarks and its staged dead letters in one commit.
     *
     * @param manifests the threads its manifests are read and written on
     * @return false when the table already held the cut (an attempt whose outcome was unknown landed)
     * @throws ZombieCommitException when the compare-and-set fails; the cut must be dropped
     * @throws IncompatibleTableException when the table's partition spec changed under the files
     * @throws CommitStateUnknownException when the catalog may have applied the attempt: retried, it finds the cut if
     *     it landed, and until then the cut's files may be the table's
     */
    public static boolean commit(Table table, Cut cut, ManifestWorkers manifests) {
        for (int attempt = 1;; attempt++) {
            table.refresh();
            // the watermarks are read from, and the append is built on, this one metadata version (PinnedOperations:
            // Iceberg would otherwise apply the append to a newer version, summary unchanged)
            TableOperations ops = ((HasTableOperations) table).operations();
            Table base = new BaseTable(new PinnedOperations(ops, ops.current()), table.name());
            Checkpoint.State checkpoint = Checkpoint.read(base);
            if (checkpoint.holds(cut.id()) || Checkpoint.inHistory(base, cut.id())) {
                return false;
            }
            checkSpec(base, cut);
            checkOwner(base, cut);
            checkExpected(checkpoint.watermarks(cut.streamArn()), cut);
            Transaction transaction = base.newTransaction(); // the files and the checkpoint: one commit
            AppendFiles append = transaction.newAppend().scanManifestsWith(manifests.executor())
                    .writeManifestsWith(manifests.executor(), manifests.threads());
            cut.files().forEach(append::appendFile);
            Map<String, String> after = checkpoint.after(cut);
            append.set(Checkpoint.COMMIT_ID_PROPERTY, cut.id());
            append.set(Checkpoint.WATERMARKS_PROPERTY, after.get(Checkpoint.WATERMARKS_PROPERTY)); // history
            append.set(Checkpoint.DEAD_LETTERS_PROPERTY, after.get(Checkpoint.DEAD_LETTERS_PROPERTY));
            append.commit();
            UpdateProperties properties = transaction.updateProperties();
            after.forEach(properties::set);
            properties.commit();
            try {
                transaction.commitTransaction();
                return true;
            } catch (CommitFailedException e) { // the compare-and-swap refused it: built again on the version that won
                if (attempt >= MAX_CONFLICT_RETRIES) {
                    throw e;
                }
            } catch (RuntimeException e) {
                throw unknownOutcome(e);
            }
        }
    }

    /**
     * A failed catalog commit was refused for sure only when Iceberg marks the failure clean ({@link CleanableFailure},
     * when it deletes its own manifests too). Any other failure may have been applied: a REST catalog's 5xx (Iceberg's
     * {@link CommitStateUnknownException}) or lost connection, a JDBC catalog's lost connection, timeout or interrupt.
     * It is not retried here: the caller must know that the cut may be in the table, and keep its files.
     */
    private static RuntimeException unknownOutcome(RuntimeException e) {
        return e instanceof CleanableFailure || e instanceof CommitStateUnknownException ? e
                : new CommitStateUnknownException(e);
    }

    private static void checkExpected(Map<String, String> committed, Cut cut) {
        cut.expected().forEach((shard, expected) -> {
            if (!Objects.equals(committed.get(shard), expected)) {
                throw new ZombieCommitException("shard " + shard + " of " + cut.streamArn() + " is at "
                        + committed.get(shard) + " in the table, not at " + expected + " where this commit started");
            }
        });
    }

    private static void checkOwner(Table table, Cut cut) {
        String owner = table.properties().get(Checkpoint.CHANNEL_ARN_PROPERTY);
        if (cut.channelArn() != null && owner != null && !owner.equals(cut.channelArn())) {
            throw new IncompatibleTableException("table " + table.name() + " is now channel " + owner + "'s");
        }
    }

    private static void checkSpec(Table table, Cut cut) {
        int spec = table.spec().specId();
        if (cut.files().stream().anyMatch(f -> f.specId() != spec)) {
            throw new IncompatibleTableException("the partition spec of table " + table.name()
                    + " was changed outside the service (now " + table.spec().fields() + ")");
        }
    }
}
