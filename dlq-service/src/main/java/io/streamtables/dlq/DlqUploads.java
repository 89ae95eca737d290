package io.streamtables.dlq;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelRegistry;
import io.streamtables.config.MaintenanceConfig;
import io.streamtables.config.Secrets;
import io.streamtables.roles.ChannelRoles;
import io.streamtables.storage.IncompleteUploads;
import io.streamtables.tasks.DaemonThreads;
import io.streamtables.tasks.Repeating;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.jboss.logging.Logger;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Part of the maintenance (README "Table maintenance"): every {@code delivery.maintenance.interval}, the multipart
 * uploads under each ACTIVE channel's error output prefix that started more than {@code delivery.maintenance.orphan-
 * age} ago and never completed are aborted. Any DLQ instance may do it: an abort is idempotent.
 */
@ApplicationScoped
public class DlqUploads {

    private static final Logger LOG = Logger.getLogger(DlqUploads.class);

    private final S3Client s3;
    private final ChannelRegistry channels;
    private final ChannelRoles roles;
    private final MaintenanceConfig config;
    private ScheduledExecutorService timer;

    public DlqUploads(S3Client s3, ChannelRegistry channels, ChannelRoles roles, MaintenanceConfig config) {
        this.s3 = s3;
        this.channels = channels;
        this.roles = roles;
        this.config = config;
    }

    void start(@Observes StartupEvent event) {
        if (config.enabled()) {
            timer = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("dlq-uploads"));
            long interval = config.interval().toMillis();
            Repeating.withDelay(timer, interval, interval, LOG, "Aborting incomplete DLQ uploads", this::abortOld);
        }
    }

    void stop(@Observes ShutdownEvent event) {
        if (timer != null) {
            timer.shutdownNow();
        }
    }

    void abortOld() {
        Instant startedBefore = Instant.now().minus(config.orphanAge());
        for (ChannelRegistry.Entry entry : channels.all()) {
            Channel channel = entry.channel();
            if (entry.status() != ChannelRegistry.Status.ACTIVE) {
                continue;
            }
            try {
                int aborted = IncompleteUploads.abort(s3, channel.dlqBucket(), channel.dlqPrefix(), startedBefore,
                        channel.dlqExpectedOwner(), roles.override(channel));
                if (aborted > 0) {
                    LOG.infof("Aborted %d incomplete uploads under s3://%s/%s (%s)", aborted, channel.dlqBucket(),
                            channel.dlqPrefix(), channel.name());
                }
            } catch (RuntimeException e) {
                LOG.warnf("Looking for incomplete uploads under s3://%s/%s failed: %s", channel.dlqBucket(),
                        channel.dlqPrefix(), Secrets.redact(e.getMessage()));
            }
        }
    }
}
