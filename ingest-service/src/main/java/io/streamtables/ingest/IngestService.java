package io.streamtables.ingest;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelRegistry;
import io.streamtables.config.IngestConfig;
import io.streamtables.config.KinesisConfig;
import io.streamtables.metrics.DeliveryMetrics;
import io.streamtables.roles.ChannelRoles;
import io.streamtables.state.InstanceIds;
import io.streamtables.state.ServiceDatabase;
import io.streamtables.tasks.Repeating;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * The ingest stage: for every ACTIVE channel (the control plane activates them), reads the shards of its stream
 * whose leases this instance holds and publishes chunks of records on the bus. Instances share the shards through
 * the leases; a heartbeat renews them every third of their duration.
 */
@ApplicationScoped
public class IngestService {

    private static final Logger LOG = Logger.getLogger(IngestService.class);
    static final long SYNC_MS = 1_000;
    static final int STREAM_THREADS = 2;

    private final ChannelRegistry channels;
    private final KinesisClient kinesis;
    private final ChannelRoles roles;
    private final CommittedWatermarks watermarks;
    private final RewindRequests rewinds;
    private final ChunkSink bus;
    private final int maxRecordsPerCall;
    private final long redeliveryGraceMillis;
    private final DeliveryMetrics metrics;
    /** Lists each channel's stream: apart from the shard reads, whose handing on may wait for the bus. */
    private final ReaderPool streamReads = new ReaderPool(STREAM_THREADS, "ingest-streams");
    private final ReaderPool shardReads;
    private volatile Repeating lifecycle;
    private volatile Repeating heartbeats;
    private final Map<String, ReaderPool.Reader> deliveries = new ConcurrentHashMap<>();
    private final ShardLeases leases;
    private volatile boolean running = true;

    public IngestService(ChannelRegistry channels, KinesisClient kinesis, CommittedWatermarks watermarks,
            RewindRequests rewinds, KinesisConfig config, ServiceDatabase database, IngestConfig ingest,
            DeliveryMetrics metrics, ChannelRoles roles,
            @ConfigProperty(name = "quarkus.http.port", defaultValue = "0") int httpPort, BusChunkSink bus) {
        this.channels = channels;
        this.kinesis = kinesis;
        this.roles = roles;
        this.watermarks = watermarks;
        this.rewinds = rewinds;
        this.bus = bus;
        this.maxRecordsPerCall = Math.min(10_000, Math.max(1, config.maxRecordsPerCall()));
        this.redeliveryGraceMillis = ingest.redeliveryGrace().toMillis();
        this.metrics = metrics;
        this.shardReads = new ReaderPool(ingest.readerThreads(), "shard-reader");
        this.leases = new ShardLeases(database, InstanceIds.of(httpPort), ingest.leaseDuration(),
                System::currentTimeMillis);
        metrics.shardLeases(leases.owner(), leases::heldCount);
    }

    void start(@Observes StartupEvent event) {
        LOG.infof("Ingest instance %s: shard leases of %d ms", leases.owner(), leases.durationMillis());
        heartbeats = Repeating.atRate("ingest-leases", 0, leases.durationMillis() / 3, LOG, "Renewing the shard leases",
                this::heartbeat);
        lifecycle = Repeating.withDelay("ingest-channels", 0, SYNC_MS, LOG, "Reading the channels", this::sync);
    }

    /** A missed heartbeat is retried at the next one; readers stop by themselves when their leases run out. */
    private void heartbeat() {
        try {
            leases.heartbeat();
        } catch (RuntimeException e) {
            LOG.warnf("Renewing the shard leases failed: %s", e.getMessage());
        }
    }

    /** Starts the delivery of every ACTIVE channel that has none running (the control plane activates them). */
    private void sync() {
        try {
            for (ChannelRegistry.Entry entry : channels.all()) {
                ReaderPool.Reader delivery = deliveries.get(entry.channel().arn());
                if (entry.status() == ChannelRegistry.Status.ACTIVE && entry.activatedAt() != null
                        && (delivery == null || delivery.isDone())) {
                    deliveries.put(entry.channel().arn(), deliver(entry));
                }
            }
        } catch (RuntimeException e) {
            LOG.warnf("Reading the channels failed, retrying: %s", e.getMessage());
        }
    }

    /** Reads the stream of an ACTIVE channel until it stops being ACTIVE or this instance stops. */
    private ReaderPool.Reader deliver(ChannelRegistry.Entry entry) {
        Channel channel = entry.channel();
        String arn = channel.arn();
        BooleanSupplier active = () -> running && channels.isActive(arn);
        ChunkSink sink = (chunk, wanted) -> bus.publish(chunk, () -> running && wanted.getAsBoolean());
        // UpdateChannel changes the interval without a restart (SPEC C5)
        IntSupplier freshness = () -> channels.get(arn).map(e -> e.channel().freshnessSeconds())
                .orElse(channel.freshnessSeconds());
        StreamReader reader = new StreamReader(kinesis, roles.override(channel),
                channel, channel.startPosition().from(entry.activatedAt()), watermarks, sink, rewinds,
                leases, shardReads, active, maxRecordsPerCall, metrics::behindLatest, freshness,
                () -> 2_000L * freshness.getAsInt() + redeliveryGraceMillis);
        return streamReads.start("Reader of " + channel.streamArn(), () -> {
            try {
                return reader.step();
            } catch (StreamReader.StreamDeletedException e) {
                channels.fail(arn, e.getMessage());
                return ReaderPool.DONE;
            }
        }, () -> {
            reader.stop();
            try {
                leases.releaseChannel(arn); // stopped: the other instances need not wait for the expiry
            } catch (RuntimeException e) {
                LOG.warnf("Releasing the shard leases of %s failed; they expire in %d ms: %s", arn,
                        leases.durationMillis(), e.getMessage());
            }
        });
    }

    void stop(@Observes ShutdownEvent event) throws InterruptedException {
        running = false;
        if (lifecycle != null) {
            lifecycle.stop();
        }
        streamReads.stop(10_000);
        shardReads.stop(10_000);
        if (heartbeats != null) {
            heartbeats.stop();
        }
        try {
            leases.releaseAll(); // after the readers stopped: the other instances take the shards at once
        } catch (RuntimeException e) {
            LOG.warnf("Releasing the shard leases failed; they expire in %d ms: %s", leases.durationMillis(),
                    e.getMessage());
        }
    }
}
