package io.streamtables.maintenance;

import io.streamtables.config.MaintenanceConfig;
import java.util.Map;
import org.apache.iceberg.TableProperties;

/**
 * One table's maintenance settings: its table properties where set (so any engine's {@code ALTER TABLE ... SET
 * TBLPROPERTIES} changes them), the service's {@code delivery.maintenance.*} defaults otherwise. A property that is
 * not a number is ignored, as if unset: a typo in another engine must not stop the maintenance of the table. The
 * orphan age never goes below {@code delivery.maintenance.min-orphan-age}.
 */
record MaintenanceSettings(
        boolean enabled,
        long targetFileSizeBytes,
        long compactionGraceMillis,
        int maxSmallFiles,
        int maxManifests,
        long maxSnapshotAgeMillis,
        int minSnapshotsToKeep,
        int maxSnapshots,
        long orphanAgeMillis,
        int recordExpirationDays) {

    static final String ENABLED = "delivery.maintenance.enabled";
    static final String COMPACTION_GRACE_MS = "delivery.maintenance.compaction-grace-ms";
    static final String MAX_SMALL_FILES = "delivery.maintenance.max-small-files";
    static final String MAX_MANIFESTS = "delivery.maintenance.max-manifests";
    static final String MAX_SNAPSHOTS = "delivery.maintenance.max-snapshots";
    static final String ORPHAN_AGE_MS = "delivery.maintenance.orphan-age-ms";
    static final String RECORD_EXPIRATION_DAYS = "delivery.record-expiration-days";
    /** S3 Tables' target file size, where the table names none. */
    static final long DEFAULT_TARGET_FILE_SIZE_BYTES = 512L * 1024 * 1024;

    static MaintenanceSettings of(Map<String, String> table, MaintenanceConfig service) {
        return new MaintenanceSettings(
                Boolean.parseBoolean(table.getOrDefault(ENABLED, "true")),
                number(table, TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, DEFAULT_TARGET_FILE_SIZE_BYTES),
                number(table, COMPACTION_GRACE_MS, service.compactionGrace().toMillis()),
                (int) number(table, MAX_SMALL_FILES, service.maxSmallFiles()),
                (int) number(table, MAX_MANIFESTS, service.maxManifests()),
                number(table, TableProperties.MAX_SNAPSHOT_AGE_MS, service.maxSnapshotAge().toMillis()),
                (int) number(table, TableProperties.MIN_SNAPSHOTS_TO_KEEP, service.minSnapshotsToKeep()),
                (int) number(table, MAX_SNAPSHOTS, service.maxSnapshots()),
                Math.max(service.minOrphanAge().toMillis(), number(table, ORPHAN_AGE_MS, service.orphanAge().toMillis())),
                (int) number(table, RECORD_EXPIRATION_DAYS, service.recordExpirationDays().orElse(0)));
    }

    boolean expiresRecords() {
        return recordExpirationDays > 0;
    }

    private static long number(Map<String, String> table, String key, long fallback) {
        String value = table.get(key);
        try {
            return value == null ? fallback : Math.max(0, Long.parseLong(value.trim()));
        } catch (NumberFormatException e) {
            return fallback;
        }
    }
}
