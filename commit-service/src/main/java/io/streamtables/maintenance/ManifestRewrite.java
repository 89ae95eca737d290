package io.streamtables.maintenance;

import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.util.PropertyUtil;

/**
 * Keeps manifests few per snapshot: a delivery's append adds a manifest and Iceberg merges them only at 100
 * ({@code commit.manifest.min-count-to-merge}), and every scan plan reads each one. Past the table's
 * {@code delivery.maintenance.max-manifests} the data manifests are rewritten, grouped by partition spec, into
 * manifests of Iceberg's target size.
 */
final class ManifestRewrite {

    private ManifestRewrite() {
    }

    /** @return the manifests rewritten, 0 when there were few enough */
    static int rewrite(Table table, FencedCommit fence, MaintenanceSettings settings) {
        table.refresh();
        Snapshot current = table.currentSnapshot();
        if (current == null) {
            return 0;
        }
        long target = PropertyUtil.propertyAsLong(table.properties(), TableProperties.MANIFEST_TARGET_SIZE_BYTES,
                TableProperties.MANIFEST_TARGET_SIZE_BYTES_DEFAULT);
        int small = (int) current.dataManifests(table.io()).stream().filter(m -> m.length() < target).count();
        if (small <= settings.maxManifests()) {
            return 0;
        }
        fence.commit(table, transaction -> transaction.rewriteManifests()
                .rewriteIf(m -> m.length() < target) // full ones stay as they are
                .clusterBy(file -> file.specId())
                .set(Compaction.SUMMARY_PROPERTY, "manifests")
                .commit());
        return small;
    }
}
