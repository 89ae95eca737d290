package io.streamtables.config;

import io.quarkus.arc.Unremovable;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

/**
 * Table maintenance by the commit stage (docs/OPERATING.md "Table maintenance"): service-wide defaults, each of which a
 * table property overrides for one table ({@code MaintenanceSettings}), so that {@code ALTER TABLE ... SET
 * TBLPROPERTIES} in any engine changes it.
 */
@Unremovable
@ConfigMapping(prefix = "delivery.maintenance")
public interface MaintenanceConfig {

    /** Off for catalogs that maintain their tables themselves (an S3 Tables bucket does). */
    @WithDefault("true")
    boolean enabled();

    /** How often each channel's table is looked at. */
    @WithDefault("5m")
    Duration interval();

    /** Tables maintained at once by this instance, each on a thread of the maintenance pool. */
    @WithDefault("1")
    int threads();

    /** A run holds its table's lease this long and renews it between steps; another instance waits it out. */
    @WithDefault("5m")
    Duration leaseDuration();

    /** An hour partition is compacted once the hour is past by the channel's freshness and this grace. */
    @WithDefault("10m")
    Duration compactionGrace();

    /** An open partition is compacted once it holds more small files than this. */
    @WithDefault("50")
    int maxSmallFiles();

    /** A snapshot lists more data manifests than this: they are rewritten into few. */
    @WithDefault("20")
    int maxManifests();

    /** Snapshots older than this are expired (Iceberg's history.expire.max-snapshot-age-ms; S3 Tables: 120 h). */
    @WithDefault("120h")
    Duration maxSnapshotAge();

    /** Snapshots always kept (Iceberg's history.expire.min-snapshots-to-keep). */
    @WithDefault("1")
    int minSnapshotsToKeep();

    /**
     * Snapshots kept at most, however young: at one commit a second, 120 hours of snapshots would make every
     * commit rewrite a metadata file of half a gigabyte.
     */
    @WithDefault("2000")
    int maxSnapshots();

    /** Files under a table's location that no snapshot references are deleted once this old. */
    @WithDefault("72h")
    Duration orphanAge();

    /**
     * How often a table's folder is listed for orphans (and its incomplete uploads for aborting), at most: a listing
     * reads every manifest and, in S3, costs a request per thousand files; orphans wait days anyway.
     */
    @WithDefault("1h")
    Duration orphanInterval();

    /**
     * The least orphan age a table property may set: a file younger than this is never taken for an orphan, whatever
     * an {@code ALTER TABLE} says (a commit in flight, or retried through a short outage, holds its files).
     */
    @WithDefault("1h")
    Duration minOrphanAge();

    /** Rows whose hour partition is older than this many days are dropped; unset: kept forever. */
    Optional<Integer> recordExpirationDays();
}
