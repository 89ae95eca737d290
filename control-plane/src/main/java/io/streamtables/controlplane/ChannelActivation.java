package io.streamtables.controlplane;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.streamtables.channel.Channel;
import io.streamtables.config.Secrets;
import io.streamtables.channel.ChannelRegistry;
import io.streamtables.tasks.Backoff;
import io.streamtables.tasks.DaemonThreads;
import io.streamtables.tasks.Repeating;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import org.jboss.logging.Logger;

/**
 * Takes each CREATING channel to ACTIVE once what its delivery needs is there, or to FAILED with what to fix
 * (SPEC C4); ingest-service reads ACTIVE channels only. A DELETING channel is removed once no stage holds a lease of
 * it. A peer that does not answer (Kinesis, S3, the registry, the
 * catalog) is waited for. Several control-plane instances may check one channel at once: the checks only read,
 * and a channel's activation time is set once.
 */
@ApplicationScoped
public class ChannelActivation {

    private static final Logger LOG = Logger.getLogger(ChannelActivation.class);
    static final long SYNC_MS = 1_000;
    /**
     * A DELETING channel is removed no sooner than this after it was first seen so: every stage reads the channels
     * at least every second (ChannelRegistry), so each has seen it and stopped; leases say when they let go.
     */
    static final long DELETE_GRACE_MS = 3_000;

    private final ChannelRegistry channels;
    private final ChannelChecks checks;
    private final Map<String, Future<?>> checking = new ConcurrentHashMap<>();
    /** When each DELETING channel was first seen so. */
    private final Map<String, Long> deleting = new ConcurrentHashMap<>();
    private final ExecutorService threads = Executors.newCachedThreadPool(DaemonThreads.numbered("channel-checks"));
    private final ScheduledExecutorService ticker =
            Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("channel-activation"));
    private volatile boolean running = true;

    ChannelActivation(ChannelRegistry channels, ChannelChecks checks) {
        this.channels = channels;
        this.checks = checks;
    }

    void start(@Observes StartupEvent event) {
        Repeating.withDelay(ticker, 0, SYNC_MS, LOG, "Reading the channels", this::sync);
    }

    /** Checks every CREATING channel that no check is running for; removes DELETING ones every stage let go. */
    private void sync() {
        long now = System.currentTimeMillis();
        deleting.keySet().removeIf(arn -> channels.get(arn).isEmpty());
        for (ChannelRegistry.Entry entry : channels.all()) {
            String arn = entry.channel().arn();
            if (entry.status() == ChannelRegistry.Status.DELETING
                    && now - deleting.computeIfAbsent(arn, k -> now) >= DELETE_GRACE_MS) {
                channels.removeIfReleased(arn);
                continue;
            }
            Future<?> check = checking.get(arn);
            if (entry.status() == ChannelRegistry.Status.CREATING && (check == null || check.isDone())) {
                checking.put(arn, threads.submit(() -> activate(entry.channel())));
            }
        }
        checking.entrySet().removeIf(e -> e.getValue().isDone());
    }

    /**
     * Runs the checks until they give an answer: a definite problem marks the channel FAILED with a reason that
     * says what to fix; an unreachable peer is waited for while the channel is still CREATING.
     */
    private void activate(Channel channel) {
        Backoff backoff = new Backoff(1_000, 30_000);
        while (running && creating(channel.arn())) {
            try {
                ChannelChecks.Verdict verdict = checks.check(channel);
                if (verdict.problem() == null) {
                    channels.activate(channel.arn(), verdict.schemaVersionId());
                } else {
                    channels.fail(channel.arn(), verdict.problem());
                }
                return;
            } catch (RuntimeException e) {
                long wait = backoff.next();
                LOG.warnf("Checking %s: a peer did not answer, retrying in %d ms: %s", channel.arn(), wait,
                        Secrets.redact(e.getMessage()));
                try {
                    Thread.sleep(wait);
                } catch (InterruptedException stopped) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private boolean creating(String arn) {
        return channels.get(arn).map(e -> e.status() == ChannelRegistry.Status.CREATING).orElse(false);
    }

    void stop(@Observes ShutdownEvent event) {
        running = false;
        ticker.shutdownNow();
        threads.shutdownNow();
    }
}
