package io.streamtables.maintenance;

import io.streamtables.watermarks.ShardWatermarks;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.StreamSupport;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * Expires the snapshots older than the table's {@code history.expire.max-snapshot-age-ms}, and those beyond the
 * newest {@code delivery.maintenance.max-snapshots}, always keeping {@code history.expire.min-snapshots-to-keep},
 * with Iceberg's {@code ExpireSnapshots}; then deletes the data files, manifests and manifest lists only they
 * referenced. The delivery checkpoint is in table properties, which expiration keeps.
 */
final class SnapshotExpiration {

    private SnapshotExpiration() {
    }

    /**
     * @param files reads each manifest once for this expiration and the orphan cleanup after it
     * @return the snapshots expired
     */
    static int expire(Table table, FencedCommit fence, MaintenanceSettings settings, long nowMillis,
            SnapshotFiles files) {
        table.refresh();
        List<Snapshot> newestFirst = StreamSupport.stream(table.snapshots().spliterator(), false)
                .sorted(Comparator.comparingLong(Snapshot::timestampMillis).reversed()).toList();
        long olderThan = nowMillis - settings.maxSnapshotAgeMillis();
        if (settings.maxSnapshots() > 0 && newestFirst.size() > settings.maxSnapshots()) {
            olderThan = Math.max(olderThan, newestFirst.get(settings.maxSnapshots() - 1).timestampMillis());
        }
        // a table an earlier release delivered to keeps its checkpoint in a snapshot's summary until a delivery of
        // this release moves it to the properties: that snapshot stays
        OptionalLong checkpoint = ShardWatermarks.checkpointSnapshotMillis(table);
        if (checkpoint.isPresent()) {
            olderThan = Math.min(olderThan, checkpoint.getAsLong());
        }
        long cutoff = olderThan;
        if (newestFirst.size() <= settings.minSnapshotsToKeep()
                || newestFirst.stream().noneMatch(s -> s.timestampMillis() < cutoff)) {
            return 0;
        }
        Set<String> held = files.of(((HasTableOperations) table).operations().current());
        fence.retrying(() -> fence.fenced(table).expireSnapshots()
                .expireOlderThan(cutoff)
                .retainLast(Math.max(1, settings.minSnapshotsToKeep()))
                .cleanExpiredFiles(false)
                .commit());
        table.refresh();
        // what only the expired snapshots held, found by reading both versions: Iceberg's own (incremental) cleanup
        // misses the files whose removal a later commit's merged manifests no longer record (a compacted delivery
        // file, say), which would wait for the orphan cleanup, days later
        held.removeAll(files.of(((HasTableOperations) table).operations().current()));
        OrphanCleanup.delete(table.io(), held);
        return (int) newestFirst.stream().filter(s -> table.snapshot(s.snapshotId()) == null).count();
    }
}
