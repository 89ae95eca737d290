package io.streamtables.console;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.streamtables.channel.ChannelGone;
import io.streamtables.channel.DeliveryLog;
import io.streamtables.metrics.DeliveryMetrics;
import io.streamtables.tasks.Repeating;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * What the status console shows beyond the channels' current state, kept in memory and bounded: each channel's data
 * freshness every {@link #SAMPLE_SECONDS} over the last hour, its rows and dead letters per hour over the last day
 * (from the delivery counters), its last maintenance runs, and the last error events of every channel. Only what
 * this process saw: in the all-in-one, every stage.
 */
@ApplicationScoped
public class ConsoleHistory {

    static final int SAMPLE_SECONDS = 10;
    static final int FRESHNESS_POINTS = 3600 / SAMPLE_SECONDS;
    static final int HOURS = 24;
    static final int MAINTENANCE_RUNS = 10;
    static final int ERRORS = 50;
    private static final Logger LOG = Logger.getLogger(ConsoleHistory.class);
    private static final Set<DeliveryLog.Event> ERROR_EVENTS = Set.of(DeliveryLog.Event.FAILED,
            DeliveryLog.Event.SUSPENDED, DeliveryLog.Event.COMMIT_FAILED, DeliveryLog.Event.DEAD_LETTERS_FAILED,
            DeliveryLog.Event.MAINTENANCE_FAILED);

    /** A value at a time (epoch seconds). */
    public record Point(long at, double value) {
    }

    /** Rows and dead letters delivered in the hour starting at {@code hour} (epoch seconds). */
    public record Hour(long hour, long rows, long deadLetters) {
    }

    /** One channel's history; each part bounded. */
    private static final class Channel {
        final Deque<Point> freshness = new ArrayDeque<>();
        final Deque<Hour> hours = new ArrayDeque<>();
        final Deque<ObjectNode> maintenance = new ArrayDeque<>();
        double rowsSeen = -1;
        double deadLettersSeen = -1;
    }

    private final DeliveryMetrics metrics;
    private final MeterRegistry registry;
    private final Map<String, Channel> channels = new ConcurrentHashMap<>();
    private final Deque<ObjectNode> errors = new ArrayDeque<>();
    private final DeliveryLog.Observer observer = this::seen;
    private Repeating timer;

    ConsoleHistory(DeliveryMetrics metrics, MeterRegistry registry) {
        this.metrics = metrics;
        this.registry = registry;
    }

    void start(@Observes StartupEvent event) {
        DeliveryLog.observe(observer);
        timer = Repeating.atRate("console-history", 0, SAMPLE_SECONDS * 1000L, LOG, "Sampling the console's history",
                () -> sample(System.currentTimeMillis() / 1000));
    }

    void stop(@Observes ShutdownEvent event) {
        DeliveryLog.unobserve(observer);
        if (timer != null) {
            timer.stop();
        }
    }

    void forget(@Observes ChannelGone gone) {
        channels.remove(gone.arn());
    }

    /** Takes the freshness of every channel held here, and what the delivery counters added since the last time. */
    void sample(long now) {
        metrics.freshness().forEach((arn, seconds) -> {
            Channel c = channels.computeIfAbsent(arn, k -> new Channel());
            synchronized (c) {
                c.freshness.addLast(new Point(now, seconds));
                while (c.freshness.size() > FRESHNESS_POINTS || c.freshness.peekFirst().at() <= now - 3600) {
                    c.freshness.removeFirst();
                }
            }
        });
        Map<String, Double> dead = new java.util.HashMap<>(); // one pass over each meter name, not one per channel
        registry.find("delivery.records.dead.lettered").counters()
                .forEach(c -> dead.put(c.getId().getTag("channel"), c.count()));
        for (Counter rows : registry.find("delivery.records.delivered").counters()) {
            String arn = rows.getId().getTag("channel");
            count(channels.computeIfAbsent(arn, k -> new Channel()), now, rows.count(), dead.getOrDefault(arn, 0.0));
        }
    }

    private static void count(Channel c, long now, double rows, double deadLetters) {
        synchronized (c) {
            long hour = now - now % 3600;
            // a counter below what was seen is a new one (the channel recreated under its ARN): all of it is new
            long newRows = (long) (rows < c.rowsSeen || c.rowsSeen < 0 ? rows : rows - c.rowsSeen);
            long newDead = (long) (deadLetters < c.deadLettersSeen || c.deadLettersSeen < 0 ? deadLetters
                    : deadLetters - c.deadLettersSeen);
            c.rowsSeen = rows;
            c.deadLettersSeen = deadLetters;
            Hour last = c.hours.peekLast();
            if (last != null && last.hour() == hour) {
                c.hours.removeLast();
                c.hours.addLast(new Hour(hour, last.rows() + newRows, last.deadLetters() + newDead));
            } else {
                c.hours.addLast(new Hour(hour, newRows, newDead));
            }
            while (c.hours.size() > HOURS) {
                c.hours.removeFirst();
            }
        }
    }

    private void seen(DeliveryLog.Event event, ObjectNode line) {
        if (event == DeliveryLog.Event.MAINTAINED || event == DeliveryLog.Event.MAINTENANCE_FAILED) {
            Channel c = channels.computeIfAbsent(line.path("channelArn").asText(), k -> new Channel());
            synchronized (c) {
                c.maintenance.addLast(line.deepCopy());
                while (c.maintenance.size() > MAINTENANCE_RUNS) {
                    c.maintenance.removeFirst();
                }
            }
        }
        if (ERROR_EVENTS.contains(event)) {
            synchronized (errors) {
                errors.addLast(line.deepCopy());
                while (errors.size() > ERRORS) {
                    errors.removeFirst();
                }
            }
        }
    }

    public List<Point> freshness(String arn) {
        return copy(arn, c -> List.copyOf(c.freshness));
    }

    public List<Hour> hours(String arn) {
        return copy(arn, c -> List.copyOf(c.hours));
    }

    public List<ObjectNode> maintenance(String arn) {
        return copy(arn, c -> List.copyOf(c.maintenance));
    }

    /** The last error events of every channel, oldest first. */
    public List<ObjectNode> errors() {
        synchronized (errors) {
            return List.copyOf(errors);
        }
    }

    private <T> List<T> copy(String arn, java.util.function.Function<Channel, List<T>> part) {
        Channel c = channels.get(arn);
        if (c == null) {
            return List.of();
        }
        synchronized (c) {
            return part.apply(c);
        }
    }
}
