package io.streamtables.maintenance;

import java.util.List;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.util.PropertyUtil;
import org.jboss.logging.Logger;

/**
 * One maintenance run on one table, in the order that leaves the least to do: claim the table for the run's epoch,
 * drop expired partitions, compact, merge manifests, expire snapshots (which deletes the files compaction and record
 * expiration replaced, once no kept snapshot needs them), then remove orphans (on runs that list the table's folder).
 * The lease is renewed before each step: a run that lost it stops, and its commits are fenced anyway.
 */
final class TableMaintenance {

    private static final Logger LOG = Logger.getLogger(TableMaintenance.class);

    /** What a run did. */
    record Report(Compaction.Result compaction, int manifestsRewritten, int snapshotsExpired, int filesExpired,
            OrphanCleanup.Result orphans) {

        boolean changedAnything() {
            return compaction.filesRewritten() > 0 || manifestsRewritten > 0 || snapshotsExpired > 0
                    || filesExpired > 0 || orphans.removed() > 0 || orphans.uploadsAborted() > 0;
        }
    }

    private TableMaintenance() {
    }

    /**
     * @param freshnessMillis the channel's freshness: an hour stays open that much longer
     * @param stillHeld renews the lease; throws {@link FencedCommit.FencedException} when it was lost
     * @param cleanOrphans whether this run lists the table's folder for orphans too
     */
    static Report run(Table table, MaintenanceSettings settings, FencedCommit fence, long freshnessMillis,
            Runnable stillHeld, long nowMillis, boolean cleanOrphans) {
        fence.claim(table);
        int filesExpired = RecordExpiration.expire(table, fence, settings, nowMillis);

        Compaction.Result compacted = Compaction.Result.NONE;
        table.refresh();
        List<Compaction.Group> due = Compaction.plan(table, settings, nowMillis, freshnessMillis);
        if (!due.isEmpty()) {
            try {
                compacted = Compaction.rewrite(table, due, table.currentSnapshot().snapshotId(), fence, settings,
                        stillHeld);
            } catch (ValidationException e) {
                // another commit removed some of the files (an engine's rewrite, record expiration): next run
                LOG.debugf("Compaction of %s skipped: %s", table.name(), e.getMessage());
            }
        }

        stillHeld.run();
        int manifests = ManifestRewrite.rewrite(table, fence, settings);
        // gc.enabled=false: the table's files are managed elsewhere (Iceberg's expiration refuses, as Spark's
        // orphan removal does)
        boolean gc = PropertyUtil.propertyAsBoolean(table.properties(), TableProperties.GC_ENABLED,
                TableProperties.GC_ENABLED_DEFAULT);
        stillHeld.run();
        SnapshotFiles reached = new SnapshotFiles(table);
        int expired = gc ? SnapshotExpiration.expire(table, fence, settings, nowMillis, reached) : 0;
        stillHeld.run();
        OrphanCleanup.Result orphans = gc && cleanOrphans
                ? OrphanCleanup.clean(table, settings, nowMillis, stillHeld, reached)
                : new OrphanCleanup.Result(0, 0, 0, false);
        return new Report(compacted, manifests, expired, filesExpired, orphans);
    }
}
