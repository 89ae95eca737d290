package io.streamtables.commit;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.streamtables.bus.RewindException;
import io.streamtables.bus.RowChunk;
import io.streamtables.bus.Topics;
import io.streamtables.catalog.Catalogs;
import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelGone;
import io.streamtables.channel.ChannelRegistry;
import io.streamtables.channel.DeliveryLog;
import io.streamtables.config.CommitConfig;
import io.streamtables.config.Secrets;
import io.streamtables.metrics.DeliveryMetrics;
import io.streamtables.schema.ChannelSchema;
import io.streamtables.schema.ChannelSchemas;
import io.streamtables.schema.SchemaEvolution;
import io.streamtables.schema.SchemaSource;
import io.streamtables.schema.UnsupportedSchemaException;
import io.streamtables.tasks.Repeating;
import io.streamtables.watermarks.IncompatibleTableException;
import io.streamtables.watermarks.ManifestWorkers;
import io.streamtables.watermarks.ShardWatermarks;
import io.streamtables.watermarks.ZombieCommitException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.util.ThreadPools;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.jboss.logging.Logger;

/**
 * The commit stage: buffers each channel's rows in Parquet writers, and when the oldest buffered record has
 * waited the freshness interval, commits the cut's files, watermarks and staged rejects to the table, then
 * publishes the rejects to the DLQ. A failed commit is retried with back-off until it lands; new rows keep
 * buffering meanwhile. A ticker finds the channels with work; their steps run on {@link CommitWorkers}, side by side,
 * each channel's one at a time.
 */
@ApplicationScoped
public class CommitService {

    private static final Logger LOG = Logger.getLogger(CommitService.class);
    static final long TICK_MS = 100;
    static final long FULL_WAIT_MS = 5_000;
    static final long MAX_BACKOFF_MS = 30_000;
    /** The idle sweep's key among the workers' (channels' keys are their ARNs). */
    private static final String IDLE_SWEEP = "idle-sweep";
    private static final int MANIFEST_THREADS = 2;

    private final Catalogs catalogs;
    private final S3TablesCreation s3Tables;
    private final ChannelRegistry channels;
    private final ChannelSchemas schemas;
    private final DeadLetterSender deadLetters;
    private final BufferLimits limits;
    private final long shutdownTimeoutMillis;
    private volatile boolean stopping;
    private final DeliveryMetrics metrics;
    private final Map<String, ChannelDelivery> deliveries = new ConcurrentHashMap<>();
    /** The dead letters of active channels without a delivery here, swept once a minute. */
    private final IdleSweep idle;
    private long idleSweptAt = System.currentTimeMillis() - ChannelDelivery.SWEEP_MS / 2;
    private volatile Repeating ticker;
    private final CommitWorkers workers;
    private final ManifestWorkers manifests = ManifestWorkers.start(MANIFEST_THREADS);

    public CommitService(Catalogs catalogs, S3TablesCreation s3Tables, ChannelRegistry channels, ChannelSchemas schemas,
            DeliveryMetrics metrics, DeadLetterSender deadLetters, CommitConfig config) {
        this.catalogs = catalogs;
        this.s3Tables = s3Tables;
        this.channels = channels;
        this.schemas = schemas;
        this.deadLetters = deadLetters;
        this.idle = new IdleSweep(channel -> catalogs.forChannel(channel).loadTable(channel.table()), deadLetters);
        this.limits = BufferLimits.of(config);
        this.shutdownTimeoutMillis = config.shutdownTimeout().toMillis();
        this.metrics = metrics;
        this.workers = new CommitWorkers(Math.max(1, config.threads()));
    }

    void start(@Observes StartupEvent event) {
        // Iceberg's worker pool registers a JVM shutdown hook when first used, which a commit at SIGTERM cannot do
        ThreadPools.getWorkerPool();
        ticker = Repeating.withDelay("commit-ticker", TICK_MS, TICK_MS, LOG, "The commit tick", this::tick);
    }

    /** A deleted channel's idle sweep goes with it. */
    void forget(@Observes ChannelGone gone) {
        idle.forget(gone.arn());
    }

    /**
     * SIGTERM: commits what each channel buffered, with its dead letters, within {@code delivery.commit.shutdown-
     * timeout}, the channels side by side as their commits ran; what is not committed by then has its files
     * removed. The records not committed are read again after the restart, from the table's watermarks.
     */
    void stop(@Observes ShutdownEvent event) throws InterruptedException {
        stopping = true;
        long deadline = System.currentTimeMillis() + shutdownTimeoutMillis;
        if (ticker != null && !ticker.stop(shutdownTimeoutMillis)
                || !workers.stop(Math.max(0, deadline - System.currentTimeMillis()))) {
            // a commit still under way may yet land: its files must stay (orphans, at worst); all is read again
            LOG.warnf("Shutting down: a commit did not end within %d ms; what is buffered is read again after the "
                    + "restart", shutdownTimeoutMillis);
            return;
        }
        workers.finish(deliveries.values().stream().map(d -> (Runnable) () -> {
            try {
                finish(d, deadline);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }).toList());
        manifests.close();
    }

    private void finish(ChannelDelivery d, long deadline) throws InterruptedException {
        String arn = d.channel().arn();
        if (d.pending() == null) {
            cut(d);
        }
        boolean committed = d.finish(deadline, () -> deliveries.containsKey(arn),
                () -> deliver(d, System.currentTimeMillis()));
        try {
            if (!committed) {
                LOG.warnf("Shutting down: the buffered rows of %s could not be committed in time; their files are "
                        + "removed and they are read again after the restart", arn);
            }
            d.drop(); // the files of what came after the last cut, and of a cut not committed
        } catch (RuntimeException e) {
            LOG.warnf("Removing the uncommitted files of %s failed: %s", arn, Secrets.redact(e.getMessage()));
        }
    }

    @Incoming(Topics.ROWS)
    public void accept(RowChunk chunk) {
        String arn = chunk.token().channelArn();
        if (stopping) {
            return; // not committed: read again after the restart
        }
        if (!channels.isActive(arn)) {
            LOG.debugf("Dropping a chunk of inactive channel %s", arn);
            return;
        }
        if (!channels.channel(arn).reads(chunk.token().streamArn())) {
            // read before the channel was deleted and created again on another stream
            LOG.debugf("Dropping a chunk of %s, which channel %s no longer reads", chunk.token().streamArn(), arn);
            return;
        }
        ChannelDelivery delivery;
        try {
            delivery = deliveries.computeIfAbsent(arn, this::open);
        } catch (TableOpener.TableNotOwnedException e) {
            channels.fail(arn, e.getMessage());
            return;
        } catch (TableOpener.TableRefusedException e) {
            Channel channel = channels.channel(arn);
            channels.fail(arn, TableRefusals.reason(channel, catalogs.maintainsItsTables(channel),
                    catalogs.describe(channel), e));
            return;
        } catch (IncompatibleTableException e) {
            channels.suspend(arn, e.getMessage() + "; delivery cannot resume: create a new channel");
            return;
        } catch (SchemaSource.SchemaNotFoundException | UnsupportedSchemaException e) {
            // the pinned version was deleted from the registry (or the latest, for a channel without one, is unusable)
            channels.fail(arn, ChannelSchemas.problem(channels.channel(arn), e));
            return;
        }
        try {
            append(delivery, chunk);
            metrics.waiting(arn, "commit", delivery.oldestWaiting());
        } catch (RewindException | ChannelBuffer.FullException e) {
            throw e;
        } catch (ChannelBuffer.OtherStreamException e) {
            // the delivery is still the one of the channel's earlier stream: the next tick closes it (gone), and the
            // chunk comes again
            throw new ChannelBuffer.FullException(e.getMessage());
        } catch (RuntimeException | Error e) {
            // part of the chunk may be in the writers (an OutOfMemoryError half way): only a discard keeps it once
            LOG.errorf(e, "Writing rows of %s failed; discarding the uncommitted buffer to read it again", arn);
            delivery.discard();
            throw e;
        }
    }

    /**
     * A full buffer is cut at the next tick, once the commit before it ended, and a table that must evolve to take
     * the chunk's rows evolves at the next tick: the chunk waits for that up to {@link #FULL_WAIT_MS}, then is
     * refused, and comes back (in memory the reader sends it again; over Kafka the rewind reads it again). The wait is
     * bounded: over Kafka it holds the consumer, so every channel of the instance.
     */
    private void append(ChannelDelivery delivery, RowChunk chunk) {
        long until = System.currentTimeMillis() + FULL_WAIT_MS;
        while (true) {
            try {
                delivery.append(chunk);
                return;
            } catch (ChannelBuffer.FullException | ChannelBuffer.EvolutionNeededException waiting) {
                if (stopping || System.currentTimeMillis() >= until) {
                    throw new ChannelBuffer.FullException("the buffer of " + delivery.channel().arn() + " waits for "
                            + waiting.getMessage());
                }
                try {
                    Thread.sleep(TICK_MS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ChannelBuffer.FullException(waiting.getMessage());
                }
            }
        }
    }

    /**
     * The first delivery of a channel creates its table (SPEC S7) from the channel's pinned schema version, and reads
     * the committed watermarks.
     */
    private ChannelDelivery open(String arn) {
        ChannelRegistry.Entry entry = channels.entry(arn);
        Channel channel = entry.channel();
        Catalog catalog = catalogs.forChannel(channel); // its encryption (SPEC E1) and role
        ChannelSchema version = schemas.pinned(entry);
        Table table = TableOpener.open(catalog, catalogs.shared(channel), channel, version.iceberg(),
                version.versionId(), s3Tables.forChannel(channel));
        Map<String, String> committed = ShardWatermarks.committed(table, channel.streamArn().toString());
        return new ChannelDelivery(channel, catalog.loadTable(channel.table()),
                new ChannelBuffer(channel, table, committed, limits), deadLetters, manifests);
    }

    /** The table evolves to take a waiting chunk's rows ({@link ChannelDelivery#evolve}). */
    private void evolve(ChannelDelivery d) {
        Channel channel = d.channel();
        List<SchemaEvolution.Difference> changes;
        try {
            changes = d.evolve();
        } catch (RuntimeException e) {
            long wait = d.evolveFailed();
            LOG.warnf("Evolving table %s of %s failed, retrying in %d ms: %s", channel.table(), channel.arn(), wait,
                    Secrets.redact(e.getMessage()));
            return;
        }
        if (!changes.isEmpty()) {
            LOG.infof("Table %s of %s evolved to schema %d: %s", channel.table(), channel.arn(),
                    d.table().schema().schemaId(), changes.stream().map(SchemaEvolution.Difference::message).toList());
            DeliveryLog.log(current(d), DeliveryLog.Event.SCHEMA_EVOLVED, Map.of("schemaId",
                    d.table().schema().schemaId(), "changes", changes.size()));
        }
    }

    /** Offers each channel with work its step, and once a minute the idle sweep. */
    private void tick() {
        long now = System.currentTimeMillis();
        if (now - idleSweptAt >= ChannelDelivery.SWEEP_MS && workers.offer(IDLE_SWEEP, this::sweepIdle)) {
            idleSweptAt = now;
        }
        for (ChannelDelivery d : deliveries.values()) {
            String arn = d.channel().arn();
            if (workers.busy(arn)) {
                continue;
            }
            // read each time: UpdateChannel changes the freshness without a restart (SPEC C5)
            ChannelRegistry.Entry entry = channels.get(arn).orElse(null);
            if (gone(d, entry) || d.due(now, entry.channel().freshnessSeconds())) {
                workers.offer(arn, () -> step(d, entry));
            }
        }
    }

    /** A channel's evolution, cut, commit and publication, as far as each is due. */
    private void step(ChannelDelivery d, ChannelRegistry.Entry entry) {
        long now = System.currentTimeMillis();
        try {
            if (gone(d, entry)) {
                deliveries.remove(d.channel().arn(), d); // deleted: delivery stops, what was committed stays
                d.drop(); // what was buffered or cut and not committed leaves no file behind
                return;
            }
            if (d.evolveDue(now)) {
                evolve(d);
            }
            if (d.cutDue(now, entry.channel().freshnessSeconds())) {
                cut(d);
            }
            if (d.retryDue(now)) {
                deliver(d, now);
            }
        } catch (RuntimeException | Error e) { // one channel's failure stops neither the others nor the workers
            LOG.errorf(e, "Delivery of %s failed", d.channel().arn());
        }
    }

    /**
     * Whether the delivery's channel was deleted: it is DELETING or gone, or was created again on another stream
     * (whose records a new delivery takes, the positions of that stream's shards from the table).
     */
    private static boolean gone(ChannelDelivery d, ChannelRegistry.Entry entry) {
        return entry == null || entry.status() == ChannelRegistry.Status.DELETING
                || !entry.channel().streamArn().equals(d.channel().streamArn());
    }

    /** Once a minute, the dead letters of the active channels this instance delivers nothing of ({@link IdleSweep}). */
    private void sweepIdle() {
        for (ChannelRegistry.Entry e : channels.all()) {
            if (stopping) {
                return; // the shutdown's commits must not wait for it
            }
            Channel channel = e.channel();
            if (e.status() != ChannelRegistry.Status.ACTIVE || deliveries.containsKey(channel.arn())) {
                idle.forget(channel.arn());
                continue;
            }
            try {
                idle.sweep(channel);
            } catch (RuntimeException ex) {
                LOG.warnf("Looking for unpublished dead letters of %s failed: %s", channel.arn(),
                        Secrets.redact(ex.getMessage()));
            }
        }
    }

    private static void cut(ChannelDelivery d) {
        try {
            d.cut();
        } catch (RuntimeException e) {
            LOG.errorf(e, "Closing the data files of %s failed; discarding the buffer to read it again",
                    d.channel().arn());
            d.discard();
        }
    }

    /** Commits the pending cut, if any, then takes the committed dead letters to the DLQ. */
    private void deliver(ChannelDelivery d, long now) {
        Channel channel = d.channel();
        PendingCommit cut = d.pending();
        try {
            if (cut != null) {
                long started = System.nanoTime();
                boolean landed = d.commit();
                metrics.waiting(channel.arn(), "commit", d.oldestWaiting());
                if (landed) {
                    committed(d, cut, (System.nanoTime() - started) / 1_000_000);
                }
            }
            d.publish();
            d.sweep(now);
            d.delivered();
        } catch (ZombieCommitException | ChannelDelivery.CutFilesGoneException e) {
            LOG.errorf("Dropping a commit of %s: %s", channel.arn(), e.getMessage());
            d.drop();
        } catch (NoSuchTableException e) {
            // SPEC C4: the destination was dropped behind the channel's back; SUSPENDED is final
            suspend(d, "table " + channel.table() + " no longer exists (it was dropped outside the service)");
        } catch (IncompatibleTableException | DeadLetterOutbox.DeadLettersRefusedException e) {
            suspend(d, e.getMessage());
        } catch (RuntimeException e) {
            metrics.commitFailed(channel.arn());
            long wait = d.failed();
            // a catalog's error may repeat its URL, and a URL may hold a password
            LOG.warnf("Delivery to %s failed, retrying in %d ms: %s", channel.table(), wait,
                    Secrets.redact(e.getMessage()));
            DeliveryLog.log(current(d), DeliveryLog.Event.COMMIT_FAILED, Map.of("error", DeliveryLog.failure(e),
                    "retryInMillis", wait));
        }
    }

    private void committed(ChannelDelivery d, PendingCommit cut, long commitMillis) {
        long bytes = cut.files().stream().mapToLong(f -> f.fileSizeInBytes()).sum();
        long oldest = cut.oldestArrivalMillis() > 0 ? cut.oldestArrivalMillis() : cut.oldestMillis();
        long freshness = System.currentTimeMillis() - oldest;
        metrics.committed(d.channel().arn(), cut.rows(), cut.rejects(), cut.files().size(), bytes);
        metrics.handedOn("commit", d.channel().arn(), oldest);
        LOG.infof("Committed %d rows in %d files and %d dead letters to %s (%s), freshness %d ms, commit %d ms",
                cut.rows(), cut.files().size(), cut.rejects(), d.channel().table(), d.channel().name(), freshness,
                commitMillis);
        DeliveryLog.log(current(d), DeliveryLog.Event.COMMITTED, Map.of("rows", cut.rows(),
                "deadLetters", cut.rejects(), "files", cut.files().size(), "bytes", bytes,
                "snapshotId", d.table().currentSnapshot().snapshotId(), "freshnessMillis", freshness));
    }

    /** The channel as it is now: UpdateChannel may have changed its logging. */
    private Channel current(ChannelDelivery d) {
        return channels.get(d.channel().arn()).map(ChannelRegistry.Entry::channel).orElse(d.channel());
    }

    /** SPEC C4: SUSPENDED is final; what was committed stays, the cut's files are removed. */
    private void suspend(ChannelDelivery d, String reason) {
        channels.suspend(d.channel().arn(), reason + "; delivery cannot resume: create a new channel");
        deliveries.remove(d.channel().arn());
        try {
            d.drop();
        } catch (RuntimeException e) {
            LOG.warnf("Removing the uncommitted files of %s failed: %s", d.channel().arn(),
                    Secrets.redact(e.getMessage()));
        }
    }
}
