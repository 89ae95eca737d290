package io.streamtables.maintenance;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.streamtables.catalog.Catalogs;
import io.streamtables.catalog.DeliveryTables;
import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelRegistry;
import io.streamtables.channel.DeliveryLog;
import io.streamtables.config.MaintenanceConfig;
import io.streamtables.config.Secrets;
import io.streamtables.state.InstanceIds;
import io.streamtables.state.Leases;
import io.streamtables.state.ServiceDatabase;
import io.streamtables.tasks.DaemonThreads;
import io.streamtables.tasks.Repeating;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Table maintenance (docs/OPERATING.md "Table maintenance"): every {@code delivery.maintenance.interval}, each ACTIVE
 * channel's table is maintained by whichever commit instance takes its lease, on a pool of its own so that delivery
 * never waits for it. Off with {@code delivery.maintenance.enabled=false}, or per table with the table property
 * {@value MaintenanceSettings#ENABLED}.
 */
@ApplicationScoped
public class MaintenanceService {

    private static final Logger LOG = Logger.getLogger(MaintenanceService.class);
    static final long FIRST_BACKOFF_MILLIS = 200;

    private final Catalogs catalogs;
    private final ChannelRegistry channels;
    private final MaintenanceConfig config;
    private final MaintenanceMetrics metrics;
    /** The table leases: one commit instance at a time maintains a table. */
    private final Leases leases;
    /** This process among those that may share its owner name: what its runs write as the table's holder. */
    private final String holder = UUID.randomUUID().toString();
    /** The tables this process maintains now ({@link Catalogs#tableKey}): one run of a table at a time. */
    private final Set<String> running = ConcurrentHashMap.newKeySet();
    /** When this instance last listed each channel's table for orphans. */
    private final Map<String, Long> orphansListed = new ConcurrentHashMap<>();
    private Repeating timer;
    private ExecutorService pool;

    public MaintenanceService(Catalogs catalogs, ChannelRegistry channels, MaintenanceConfig config,
            MaintenanceMetrics metrics, ServiceDatabase database,
            @ConfigProperty(name = "quarkus.http.port", defaultValue = "0") int httpPort) {
        this.catalogs = catalogs;
        this.channels = channels;
        this.config = config;
        this.metrics = metrics;
        this.leases = new Leases(database, InstanceIds.of(httpPort), config.leaseDuration(),
                System::currentTimeMillis);
    }

    void start(@Observes StartupEvent event) {
        if (!config.enabled()) {
            LOG.info("Table maintenance is off (delivery.maintenance.enabled=false)");
            return;
        }
        pool = Executors.newFixedThreadPool(Math.max(1, config.threads()), DaemonThreads.named("maintenance"));
        long interval = config.interval().toMillis();
        timer = Repeating.withDelay("maintenance-timer", interval, interval, LOG, "Scheduling table maintenance",
                this::schedule);
    }

    void stop(@Observes ShutdownEvent event) {
        if (timer != null) {
            timer.stop();
            pool.shutdownNow(); // a run stopped half way committed whole steps only; its unfinished files are orphans
        }
    }

    private void schedule() {
        Set<String> known = new HashSet<>();
        for (ChannelRegistry.Entry entry : channels.all()) {
            Channel channel = entry.channel();
            known.add(channel.arn());
            String table = catalogs.tableKey(channel);
            if (entry.status() == ChannelRegistry.Status.ACTIVE && running.add(table)) {
                try {
                    pool.execute(() -> {
                        try {
                            maintain(channel, table);
                        } finally {
                            running.remove(table);
                        }
                    });
                } catch (RejectedExecutionException shuttingDown) {
                    running.remove(table);
                }
            }
        }
        orphansListed.keySet().retainAll(known); // deleted channels
    }

    /** One run on the channel's table (its {@link Catalogs#tableKey}), if this instance gets its lease. */
    void maintain(Channel channel, String tableKey) {
        OptionalLong epoch;
        try {
            epoch = leases.take(Leases.Kind.TABLE, tableKey, channel.arn());
        } catch (RuntimeException e) {
            LOG.warnf("Table maintenance of %s waits: %s", channel.table(), Secrets.redact(e.getMessage()));
            return;
        }
        if (epoch.isEmpty()) {
            return; // another instance maintains it
        }
        long started = System.currentTimeMillis();
        long held = epoch.getAsLong();
        try {
            Table table = catalogs.forChannel(channel).loadTable(channel.table());
            MaintenanceSettings settings = MaintenanceSettings.of(table.properties(), config);
            if (!settings.enabled() || !DeliveryTables.maintainedBy(table, channel.arn())
                    || catalogs.maintainsItsTables(channel)) {
                return; // a table the channel did not create is its owner's to maintain, an S3 Tables one S3's
            }
            long inTable = FencedCommit.inTable(table);
            if (inTable == held && FencedCommit.heldByAnother(table, held, holder)) {
                // an instance that names itself as this one does (one host name, one port) holds this epoch too
                LOG.warnf("Table %s is claimed at maintenance epoch %d by another process of owner %s: raising the "
                        + "lease", channel.table(), held, leases.owner());
                if (!leases.raise(Leases.Kind.TABLE, tableKey, held, held + 1)) {
                    return;
                }
                held = held + 1;
            } else if (inTable > held) {
                // no run of a newer epoch can hold the table while we hold its lease: the database forgot them
                LOG.warnf("Table %s holds maintenance epoch %d, the service database's lease only %d (a new "
                        + "database?): raising the lease", channel.table(), inTable, held);
                if (!leases.raise(Leases.Kind.TABLE, tableKey, held, inTable + 1)) {
                    return;
                }
                held = inTable + 1;
            }
            long runEpoch = held;
            FencedCommit fence = new FencedCommit(runEpoch, holder, FIRST_BACKOFF_MILLIS);
            boolean listOrphans = started - orphansListed.getOrDefault(channel.arn(), 0L)
                    >= config.orphanInterval().toMillis();
            TableMaintenance.Report report = TableMaintenance.run(table, settings, fence,
                    channel.freshnessSeconds() * 1000L, () -> renew(tableKey, runEpoch), started, listOrphans);
            if (listOrphans) {
                orphansListed.put(channel.arn(), started);
            }
            metrics.ran(channel.arn(), channel.table().toString(), report);
            if (report.changedAnything()) {
                logged(channel, report, System.currentTimeMillis() - started);
            }
        } catch (NoSuchTableException nothingDeliveredYet) {
            // the first delivery creates it
        } catch (FencedCommit.FencedException e) {
            LOG.warnf("Table maintenance of %s stopped: %s", channel.table(), e.getMessage());
        } catch (RuntimeException e) {
            metrics.failed(channel.arn(), channel.table().toString());
            String reason = Secrets.redact(String.valueOf(e.getMessage()));
            LOG.warnf("Table maintenance of %s failed, it runs again in %s: %s", channel.table(), config.interval(),
                    reason);
            DeliveryLog.log(channel, DeliveryLog.Event.MAINTENANCE_FAILED, Map.of("error", DeliveryLog.failure(e)));
        } finally {
            try {
                leases.expire(Leases.Kind.TABLE, tableKey, held);
            } catch (RuntimeException e) {
                LOG.debugf("Releasing the maintenance lease of %s failed (it expires): %s", channel.table(),
                        Secrets.redact(e.getMessage()));
            }
        }
    }

    private void renew(String tableKey, long epoch) {
        if (Thread.currentThread().isInterrupted() || !leases.renew(Leases.Kind.TABLE, tableKey, epoch)) {
            throw new FencedCommit.FencedException("the maintenance lease of " + tableKey + " was lost");
        }
    }

    private static void logged(Channel channel, TableMaintenance.Report r, long millis) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("partitionsCompacted", r.compaction().partitions());
        details.put("filesCompacted", r.compaction().filesRewritten());
        details.put("filesWritten", r.compaction().filesWritten());
        details.put("bytesCompacted", r.compaction().bytesRewritten());
        details.put("manifestsRewritten", r.manifestsRewritten());
        details.put("snapshotsExpired", r.snapshotsExpired());
        details.put("filesExpired", r.filesExpired());
        details.put("orphansRemoved", r.orphans().removed());
        details.put("uploadsAborted", r.orphans().uploadsAborted());
        details.put("millis", millis);
        LOG.infof("Maintained %s (%s): %s", channel.table(), channel.name(), details);
        DeliveryLog.log(channel, DeliveryLog.Event.MAINTAINED, details);
    }
}
