package io.streamtables.commit;

import io.streamtables.catalog.DeliveryTables;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;

/**
 * Commits a cut exactly once: the files, the merged shard watermarks and the shards' staged dead letters
 * ({@link DeadLetterOutbox}) in one snapshot, after checking that
 * the table still holds the watermarks the cut started from (compare-and-set). Iceberg's own retry is off
 * (it would re-apply a stale watermark map); this loop refreshes, re-checks and rebuilds the map instead. The
 * append is built on the metadata version the map was computed from ({@link PinnedOperations}): Iceberg refreshes
 * inside the append even without retries, which let another instance's commit in between and took its shards'
 * watermarks back.
 */
final class TableCommitter {

    static final int MAX_CONFLICT_RETRIES = 10;

    /**
     * Iceberg's shared worker pool is shut down by a JVM shutdown hook of its own as soon as SIGTERM comes, so the
     * commit at shutdown (CommitService.stop) reads and writes manifests on this pool instead.
     */
    private static final int MANIFEST_THREADS = 2;
    private static final ExecutorService MANIFEST_WORKERS = Executors.newFixedThreadPool(MANIFEST_THREADS, r -> {
        Thread t = new Thread(r, "commit-manifests");
        t.setDaemon(true);
        return t;
    });

    /** The table moved past the cut's starting watermarks: another writer owns the shard now. */
    static final class ZombieCommitException extends IllegalStateException {
        ZombieCommitException(String message) {
            super(message);
        }
    }

    private TableCommitter() {
    }

    /**
     * @return false when the table already held the cut (an attempt whose outcome was unknown landed)
     * @throws ZombieCommitException when the compare-and-set fails; the cut must be dropped
     * @throws TableOpener.IncompatibleTableException when the table's partition spec changed under the files
     */
    static boolean commit(Table table, PendingCommit cut) {
        for (int attempt = 1;; attempt++) {
            table.refresh();
            // the watermarks are read from, and the append is built on, this one metadata version (see
            // PinnedOperations: Iceberg would otherwise apply the append to a newer version, summary unchanged)
            TableOperations ops = ((HasTableOperations) table).operations();
            Table base = new BaseTable(new PinnedOperations(ops, ops.current()), table.name());
            if (DeliveryTables.holds(base, cut.id())) {
                return false; // an attempt whose outcome was unknown landed
            }
            Map<String, String> current = DeliveryTables.watermarks(base);
            checkSpec(base, cut);
            checkExpected(current, cut);
            Map<String, String> merged = new TreeMap<>(current);
            merged.putAll(cut.advanced());
            AppendFiles append = base.newAppend().scanManifestsWith(MANIFEST_WORKERS)
                    .writeManifestsWith(MANIFEST_WORKERS, MANIFEST_THREADS);
            cut.files().forEach(append::appendFile);
            append.set(DeliveryTables.WATERMARKS_PROPERTY, DeliveryTables.toJson(merged));
            append.set(DeliveryTables.COMMIT_ID_PROPERTY, cut.id());
            Map<String, String> deadLetters = DeliveryTables.deadLetters(base);
            cut.deadLetters().forEach(batch -> deadLetters.put(batch.rejects().get(0).shardId(), cut.deadLetterFile()));
            if (!deadLetters.isEmpty()) {
                append.set(DeliveryTables.DEAD_LETTERS_PROPERTY, DeliveryTables.toJson(deadLetters));
            }
            try {
                append.commit();
                return true;
            } catch (CommitFailedException | CommitStateUnknownException e) {
                if (attempt >= MAX_CONFLICT_RETRIES) {
                    throw e;
                }
            }
        }
    }

    /**
     * The compare-and-set alone, on the table as last refreshed, before anything of the cut is written: a zombie
     * (an instance that lost its shards, e.g. paused past its Kafka session) must not write its cut's dead letters
     * either, since their DLQ object keys are those the shard's new owner writes from the same watermark.
     *
     * @throws ZombieCommitException when the table moved past the cut's starting watermarks
     */
    static void checkExpected(Table table, PendingCommit cut) {
        if (!DeliveryTables.holds(table, cut.id())) {
            checkExpected(DeliveryTables.watermarks(table), cut);
        }
    }

    private static void checkExpected(Map<String, String> current, PendingCommit cut) {
        cut.expected().forEach((shard, expected) -> {
            if (!Objects.equals(current.get(shard), expected)) {
                throw new ZombieCommitException("shard " + shard + " is at " + current.get(shard)
                        + " in the table, not at " + expected + " where this commit started");
            }
        });
    }

    /** @throws TableOpener.IncompatibleTableException when the table's partition spec changed under the files */
    static void checkSpec(Table table, PendingCommit cut) {
        int spec = table.spec().specId();
        if (cut.files().stream().anyMatch(f -> f.specId() != spec)) {
            throw new TableOpener.IncompatibleTableException("the partition spec of table " + table.name()
                    + " was changed outside the service (now " + table.spec().fields() + ")");
        }
    }

}
