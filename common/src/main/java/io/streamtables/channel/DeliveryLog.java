package io.streamtables.channel;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamtables.config.Secrets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jboss.logging.Logger;

/**
 * Per-channel delivery logs (SPEC C7): one JSON object per line on the log category {@code delivery}, carrying
 * the channel and its {@code LoggingConfiguration} log group and stream, for a log shipper (or CloudWatch agent)
 * to route. Written only while the channel's logging is enabled; never holds record payloads. Observers (the status
 * console) see every event, logged or not.
 */
public final class DeliveryLog {

    /** The log category; application.properties gives it a handler of its own that prints just the line. */
    public static final String CATEGORY = "delivery";

    private static final Logger LOG = Logger.getLogger(CATEGORY);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What happened to a channel's delivery. */
    public enum Event {
        ACTIVE, FAILED, SUSPENDED, COMMITTED, COMMIT_FAILED, DEAD_LETTERS_STORED, DEAD_LETTERS_FAILED, MAINTAINED,
        MAINTENANCE_FAILED, DELETING, SCHEMA_EVOLVED
    }

    /** Sees each event as {@code (event, line)}: the line's fields without the log group and stream. */
    public interface Observer {
        void seen(Event event, ObjectNode line);
    }

    private static final List<Observer> OBSERVERS = new CopyOnWriteArrayList<>();

    private DeliveryLog() {
    }

    public static void observe(Observer observer) {
        OBSERVERS.add(observer);
    }

    public static void unobserve(Observer observer) {
        OBSERVERS.remove(observer);
    }

    /**
     * A failure as a tenant may read it in its delivery log: what kind of failure, not its message, which may name
     * the operator's hosts, JDBC URLs and paths (a catalog's or a store's error); the service's own log has that.
     */
    public static String failure(Throwable e) {
        return e.getClass().getSimpleName() + " (the cause is in the service's own log, for its operator)";
    }

    /** Logs the event if the channel's delivery logging is enabled; {@code details} are numbers or strings. */
    public static void log(Channel channel, Event event, Map<String, ?> details) {
        ChannelDefinition.LoggingConfiguration logging = channel.definition().loggingConfiguration();
        ChannelDefinition.CloudWatchLogs target = logging == null ? null : logging.cloudWatchLogs();
        boolean logged = target != null && Boolean.TRUE.equals(target.enabled());
        if (!logged && OBSERVERS.isEmpty()) {
            return;
        }
        ObjectNode line = JSON.createObjectNode();
        line.put("timestamp", Instant.now().toString());
        if (logged) {
            line.put("logGroupName", target.logGroupName());
            line.put("logStreamName", target.logStreamName());
        }
        line.put("channelArn", channel.arn());
        line.put("channelName", channel.name());
        line.put("table", channel.table().toString());
        line.put("event", event.name());
        details.forEach((k, v) -> line.set(k, JSON.valueToTree(v instanceof String text ? Secrets.redact(text) : v)));
        for (Observer observer : OBSERVERS) {
            try {
                observer.seen(event, line);
            } catch (RuntimeException e) { // what watches the delivery never stops it
                LOG.debugf(e, "A delivery log observer failed on %s", event);
            }
        }
        if (!logged) {
            return;
        }
        if (event == Event.FAILED || event == Event.SUSPENDED || event == Event.COMMIT_FAILED
                || event == Event.DEAD_LETTERS_FAILED) {
            LOG.warn(line.toString());
        } else {
            LOG.info(line.toString());
        }
    }
}
