package io.streamtables.cloudwatch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelRegistry;
import io.streamtables.channel.DeliveryLog;
import io.streamtables.config.AwsClients;
import io.streamtables.config.CloudWatchConfig;
import io.streamtables.config.DeliveryConfig;
import io.streamtables.config.Secrets;
import io.streamtables.roles.ChannelRoles;
import io.streamtables.tasks.Backoff;
import io.streamtables.tasks.Repeating;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import org.jboss.logging.Logger;
import software.amazon.awssdk.services.cloudwatchlogs.CloudWatchLogsClient;
import software.amazon.awssdk.services.cloudwatchlogs.model.InputLogEvent;
import software.amazon.awssdk.services.cloudwatchlogs.model.ResourceAlreadyExistsException;
import software.amazon.awssdk.services.cloudwatchlogs.model.ResourceNotFoundException;

/**
 * Ships the delivery log (SPEC C7) to each channel's {@code LoggingConfiguration} log group and stream with
 * PutLogEvents, as the channel's ServiceExecutionRoleARN, as the managed feature does. A handler of the
 * {@code delivery} log category queues each line (the line itself is unchanged, and still printed); a timer sends
 * them in batches. Never blocks delivery: past {@code delivery.cloudwatch.logs.max-queued} lines waiting, the oldest
 * line of the target holding the most is dropped and counted; a target that refuses is retried with back-off, its
 * lines kept meanwhile (up to CloudWatch's 14 days); a missing log group or stream is created.
 */
@ApplicationScoped
public class DeliveryLogShipper {

    /** PutLogEvents' limits: 10 000 events and 1 MiB a call, each event counted as its UTF-8 bytes plus 26. */
    static final int MAX_EVENTS = 10_000;
    static final int MAX_BYTES = 1_048_576;
    static final int EVENT_OVERHEAD = 26;
    /** ... and events of at most 24 hours a call, none older than 14 days. */
    static final long MAX_SPAN_MILLIS = 24 * 3_600_000L;
    static final long MAX_AGE_MILLIS = 14 * 24 * 3_600_000L;
    private static final Logger LOG = Logger.getLogger(DeliveryLogShipper.class);

    /** Where a channel's lines go: its log group and stream, as the line names them. */
    record Target(String channelArn, String group, String stream) {
    }

    record Line(long timestamp, String message) {
    }

    /**
     * A target's lines waiting, in the order they were logged, its channel as last seen (a deleted channel's last
     * lines go as its role still), and its back-off after a refusal.
     */
    private static final class Queue {
        final Deque<Line> lines = new ConcurrentLinkedDeque<>();
        final Backoff backoff = new Backoff(1_000, 60_000);
        Channel channel;
        long retryAt;
    }

    private final CloudWatchConfig.Logs config;
    private final String region;
    private final Function<String, Optional<Channel>> channels;
    private final ChannelRoles roles;
    private final Map<Target, Queue> queues = new ConcurrentHashMap<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final ObjectMapper json;
    private final Counter shipped;
    private final Counter dropped;
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            offer(record.getMillis(), record.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private CloudWatchLogsClient logs;
    private Repeating timer;

    @Inject
    DeliveryLogShipper(CloudWatchConfig config, DeliveryConfig delivery, ChannelRegistry channels,
            ChannelRoles roles, MeterRegistry meters, ObjectMapper json) {
        this(config.logs(), delivery.region(), arn -> channels.get(arn).map(ChannelRegistry.Entry::channel), roles,
                meters, json);
    }

    /** @param channels the channel of an ARN, while it exists */
    DeliveryLogShipper(CloudWatchConfig.Logs config, String region, Function<String, Optional<Channel>> channels,
            ChannelRoles roles, MeterRegistry meters, ObjectMapper json) {
        this.config = config;
        this.json = json;
        this.region = region;
        this.channels = channels;
        this.roles = roles;
        this.shipped = meters.counter("delivery.log.shipped");
        this.dropped = meters.counter("delivery.log.dropped");
    }

    void start(@Observes StartupEvent event) {
        if (!config.enabled()) {
            return;
        }
        // a call that hangs ends: the run goes on to the next target and stays within the liveness bound
        logs = AwsClients.build(CloudWatchLogsClient.builder().overrideConfiguration(o -> o
                .apiCallTimeout(Duration.ofSeconds(30))), config, "delivery.cloudwatch.logs", region);
        java.util.logging.Logger.getLogger(DeliveryLog.CATEGORY).addHandler(handler);
        long interval = config.interval().toMillis();
        timer = Repeating.withDelay("cloudwatch-logs", interval, interval, LOG,
                "Shipping the delivery log to CloudWatch Logs", this::ship);
    }

    void stop(@Observes ShutdownEvent event) {
        if (timer != null) {
            java.util.logging.Logger.getLogger(DeliveryLog.CATEGORY).removeHandler(handler);
            try {
                timer.stop(10_000); // the run under way
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            synchronized (this) {
                ship(true); // what is left, once, backing off or not
            }
            logs.close();
        }
    }

    /** Queues a delivery log line for its channel's target: cheap and never blocking, as it runs on the logger. */
    void offer(long timestamp, String message) {
        JsonNode line;
        try {
            line = json.readTree(message);
        } catch (IOException e) {
            return; // not a delivery log line
        }
        if (!line.hasNonNull("channelArn") || !line.hasNonNull("logGroupName") || !line.hasNonNull("logStreamName")) {
            return;
        }
        Target target = new Target(line.get("channelArn").asText(), line.get("logGroupName").asText(),
                line.get("logStreamName").asText());
        queues.compute(target, (t, queue) -> { // compute: a queue being forgotten takes no line meanwhile
            Queue q = queue == null ? new Queue() : queue;
            q.lines.add(new Line(timestamp, message));
            return q;
        });
        if (queued.incrementAndGet() > config.maxQueued()) {
            dropOldestOfTheLongest();
        }
    }

    /**
     * Past the bound, the oldest line of the target holding the most goes: a target that keeps refusing (a role
     * without logs:PutLogEvents) loses its own lines, not the other channels'.
     */
    private void dropOldestOfTheLongest() {
        queues.values().stream().max(Comparator.comparingInt(q -> q.lines.size())).ifPresent(q -> {
            if (q.lines.pollFirst() != null) {
                queued.decrementAndGet();
                dropped.increment();
            }
        });
    }

    /** Sends every target's lines that are due, a batch per call within PutLogEvents' limits. */
    synchronized void ship() {
        ship(false);
    }

    /** @param now even the targets backing off (the last run, at shutdown) */
    private void ship(boolean now) {
        queues.forEach((target, queue) -> {
            if (!now && queue.retryAt > System.currentTimeMillis()) {
                return;
            }
            Optional<Channel> channel = channels.apply(target.channelArn());
            channel.ifPresent(c -> queue.channel = c);
            if (queue.channel == null) { // deleted before its first lines were sent: no role to send them as
                forget(target);
                return;
            }
            try {
                dropStale(queue);
                while (!queue.lines.isEmpty()) {
                    send(target, queue);
                }
                queue.backoff.reset();
                if (channel.isEmpty()) { // deleted: no line comes any more
                    forget(target);
                }
            } catch (RuntimeException e) { // a refusal, a timeout, a role that cannot be assumed: this target's
                long wait = queue.backoff.next();
                queue.retryAt = System.currentTimeMillis() + wait; // from the refusal: the SDK retried first
                LOG.warnf("CloudWatch Logs refused the delivery log of %s/%s (%s); %d lines wait, retried in %d ms",
                        target.group(), target.stream(), Secrets.redact(e.getMessage()), queue.lines.size(), wait);
            }
        });
    }

    /** CloudWatch Logs refuses events older than 14 days: a target refused that long loses them. */
    private void dropStale(Queue queue) {
        long oldest = System.currentTimeMillis() - MAX_AGE_MILLIS;
        while (!queue.lines.isEmpty() && queue.lines.peekFirst().timestamp() < oldest) {
            queue.lines.pollFirst();
            queued.decrementAndGet();
            dropped.increment();
        }
    }

    private void forget(Target target) {
        queues.computeIfPresent(target, (t, queue) -> {
            queued.addAndGet(-queue.lines.size());
            dropped.increment(queue.lines.size());
            return null;
        });
    }

    /** One PutLogEvents of the oldest lines that fit; they leave the queue only once it succeeded. */
    private void send(Target target, Queue queue) {
        Deque<Line> lines = queue.lines;
        List<InputLogEvent> batch = new ArrayList<>();
        int bytes = 0;
        long first = lines.isEmpty() ? 0 : lines.peekFirst().timestamp();
        for (Line line : lines) {
            int size = line.message().getBytes(StandardCharsets.UTF_8).length + EVENT_OVERHEAD;
            if (batch.size() == MAX_EVENTS || bytes + size > MAX_BYTES || line.timestamp() - first >= MAX_SPAN_MILLIS) {
                break;
            }
            batch.add(InputLogEvent.builder().timestamp(line.timestamp()).message(line.message()).build());
            bytes += size;
        }
        batch.sort(Comparator.comparingLong(InputLogEvent::timestamp)); // lines of two threads may cross
        Channel as = queue.channel;
        try {
            logs.putLogEvents(r -> r.overrideConfiguration(roles.override(as)).logGroupName(target.group())
                    .logStreamName(target.stream()).logEvents(batch));
        } catch (ResourceNotFoundException e) { // the group or the stream does not exist yet: create, send again
            create(as, target);
            logs.putLogEvents(r -> r.overrideConfiguration(roles.override(as)).logGroupName(target.group())
                    .logStreamName(target.stream()).logEvents(batch));
        }
        for (int i = 0; i < batch.size(); i++) {
            lines.poll();
        }
        queued.addAndGet(-batch.size());
        shipped.increment(batch.size());
    }

    private void create(Channel channel, Target target) {
        try {
            logs.createLogGroup(r -> r.overrideConfiguration(roles.override(channel)).logGroupName(target.group()));
        } catch (ResourceAlreadyExistsException e) {
            // the stream was missing
        }
        try {
            logs.createLogStream(r -> r.overrideConfiguration(roles.override(channel)).logGroupName(target.group())
                    .logStreamName(target.stream()));
        } catch (ResourceAlreadyExistsException e) {
            // created meanwhile
        }
    }
}
