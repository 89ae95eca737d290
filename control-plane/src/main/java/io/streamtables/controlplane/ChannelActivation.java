package io.streamtables.controlplane;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.streamtables.channel.Channel;
import io.streamtables.config.ActivationConfig;
import io.streamtables.config.Secrets;
import io.streamtables.channel.ChannelRegistry;
import io.streamtables.tasks.Backoff;
import io.streamtables.tasks.DaemonThreads;
import io.streamtables.tasks.Repeating;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.jboss.logging.Logger;

/**
 * Takes each CREATING channel to ACTIVE once what its delivery needs is there, or to FAILED with what to fix
 * (SPEC C4); ingest-service reads ACTIVE channels only. A DELETING channel is removed once no stage holds a lease of
 * it. A peer that does not answer (Kinesis, S3, the registry, the
 * catalog) is waited for, up to {@code delivery.activation.timeout}; then the channel is FAILED with the last error.
 * The checks run on a few threads, one attempt at a time, a channel's next attempt after its back-off: waiting
 * channels hold no thread. Several control-plane instances may check one channel at once: the checks only read, and
 * a channel's activation time is set once.
 */
@ApplicationScoped
public class ChannelActivation {

    private static final Logger LOG = Logger.getLogger(ChannelActivation.class);
    static final long SYNC_MS = 1_000;
    /** Checks under way at once: each is a few calls to peers, and a waiting channel holds none. */
    static final int CHECK_THREADS = 4;
    /**
     * A DELETING channel is removed no sooner than this after it was first seen so: every stage reads the channels
     * at least every second (ChannelRegistry), so each has seen it and stopped; leases say when they let go.
     */
    static final long DELETE_GRACE_MS = 3_000;

    private final ChannelRegistry channels;
    private final ChannelChecks checks;
    private final ChannelGauges gauges;
    private final long timeoutMillis;
    /** The CREATING channels being checked here. */
    private final Map<String, Attempts> checking = new ConcurrentHashMap<>();
    /** When each DELETING channel was first seen so. */
    private final Map<String, Long> deleting = new ConcurrentHashMap<>();
    private final ExecutorService threads = Executors.newFixedThreadPool(CHECK_THREADS,
            DaemonThreads.numbered("channel-checks"));
    private volatile Repeating ticker;

    ChannelActivation(ChannelRegistry channels, ChannelChecks checks, ChannelGauges gauges, ActivationConfig config) {
        this.channels = channels;
        this.gauges = gauges;
        this.checks = checks;
        this.timeoutMillis = config.timeout().toMillis();
    }

    /** A channel's checks so far: since when, and when the next attempt is due. */
    private static final class Attempts {
        final long since;
        final Backoff backoff = new Backoff(1_000, 30_000);
        volatile long nextAt;
        volatile boolean underWay;

        Attempts(long since) {
            this.since = since;
        }
    }

    void start(@Observes StartupEvent event) {
        ticker = Repeating.withDelay("channel-activation", 0, SYNC_MS, LOG, "Reading the channels", this::sync);
    }

    /** Starts the due check of every CREATING channel; removes DELETING ones every stage let go. */
    private void sync() {
        long now = System.currentTimeMillis();
        deleting.keySet().removeIf(arn -> channels.get(arn).isEmpty());
        Set<String> creating = new HashSet<>();
        for (ChannelRegistry.Entry entry : channels.all()) {
            String arn = entry.channel().arn();
            if (entry.status() == ChannelRegistry.Status.DELETING
                    && now - deleting.computeIfAbsent(arn, k -> now) >= DELETE_GRACE_MS) {
                channels.removeIfReleased(arn);
                continue;
            }
            if (entry.status() != ChannelRegistry.Status.CREATING) {
                continue;
            }
            creating.add(arn);
            Attempts attempts = checking.computeIfAbsent(arn, k -> new Attempts(now));
            if (!attempts.underWay && now >= attempts.nextAt) {
                attempts.underWay = true;
                threads.execute(() -> check(entry.channel(), attempts));
            }
        }
        checking.keySet().retainAll(creating);
        gauges.show(channels.all());
    }

    /**
     * One attempt: a definite problem marks the channel FAILED with a reason that says what to fix; an unreachable
     * peer is tried again after the back-off, until the timeout.
     */
    private void check(Channel channel, Attempts attempts) {
        try {
            ChannelChecks.Verdict verdict = checks.check(channel);
            if (verdict.problem() == null) {
                channels.activate(channel.arn(), verdict.schemaVersionId());
            } else {
                channels.fail(channel.arn(), verdict.problem());
            }
        } catch (RuntimeException e) {
            String error = Secrets.redact(e.getMessage());
            long now = System.currentTimeMillis();
            if (now - attempts.since >= timeoutMillis) {
                // the error names the operator's endpoints: the log has it, the tenant's reason does not
                LOG.errorf("Checking %s: no answer for %d s, the channel fails: %s", channel.arn(), timeoutMillis / 1000,
                        error);
                channels.fail(channel.arn(), "the checks of the channel got no answer for " + timeoutMillis / 1000
                        + " s (delivery.activation.timeout): a service it depends on (Kinesis, S3, the schema "
                        + "registry, the catalog) did not answer; the operator's log has the error");
                return;
            }
            long wait = attempts.backoff.next();
            attempts.nextAt = now + wait;
            LOG.warnf("Checking %s: a peer did not answer, retrying in %d ms: %s", channel.arn(), wait, error);
        } finally {
            attempts.underWay = false;
        }
    }

    void stop(@Observes ShutdownEvent event) {
        if (ticker != null) {
            ticker.stop();
        }
        threads.shutdownNow();
    }
}
