package io.streamtables.maintenance;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Per-table maintenance metrics on {@code /q/metrics}, tagged with the channel and the table. */
@ApplicationScoped
public class MaintenanceMetrics {

    private final MeterRegistry registry;
    /** channel → when its last run ended (epoch seconds). */
    private final Map<String, AtomicLong> lastRun = new ConcurrentHashMap<>();

    public MaintenanceMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    void ran(String channelArn, String table, TableMaintenance.Report report) {
        count("delivery.maintenance.files.compacted", "small data files rewritten", channelArn, table,
                report.compaction().filesRewritten());
        count("delivery.maintenance.files.written", "data files written by compaction", channelArn, table,
                report.compaction().filesWritten());
        count("delivery.maintenance.bytes.compacted", "bytes of data files rewritten", channelArn, table,
                report.compaction().bytesRewritten());
        count("delivery.maintenance.manifests.rewritten", "manifests merged", channelArn, table,
                report.manifestsRewritten());
        count("delivery.maintenance.snapshots.expired", "snapshots expired", channelArn, table,
                report.snapshotsExpired());
        count("delivery.maintenance.files.expired", "data files dropped by record expiration", channelArn, table,
                report.filesExpired());
        count("delivery.maintenance.orphans.removed", "unreferenced files deleted", channelArn, table,
                report.orphans().removed());
        count("delivery.maintenance.orphans.bytes", "bytes of unreferenced files deleted", channelArn, table,
                report.orphans().bytes());
        count("delivery.maintenance.uploads.aborted", "incomplete multipart uploads aborted", channelArn, table,
                report.orphans().uploadsAborted());
        lastRun.computeIfAbsent(channelArn, arn -> {
            AtomicLong at = new AtomicLong();
            Gauge.builder("delivery.maintenance.last.run", at, AtomicLong::get)
                    .description("when the last maintenance run of the table ended").baseUnit("seconds")
                    .tags("channel", arn, "table", table).register(registry);
            return at;
        }).set(System.currentTimeMillis() / 1000);
    }

    void failed(String channelArn, String table) {
        count("delivery.maintenance.failures", "maintenance runs that failed", channelArn, table, 1);
    }

    private void count(String name, String description, String channelArn, String table, long amount) {
        Counter.builder(name).description(description).tags("channel", channelArn, "table", table)
                .register(registry).increment(amount);
    }
}
