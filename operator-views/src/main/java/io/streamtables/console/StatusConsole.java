package io.streamtables.console;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quarkus.vertx.http.ManagementInterface;
import io.streamtables.channel.ChannelRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Comparator;

/**
 * The status console on the management port (the operators' network, beside /q/health and /q/metrics):
 * {@code /console} is one page, its script and styles in it (nothing fetched from elsewhere), that shows what
 * {@code /console/status.json} answers: every channel with its state and reason, its freshness over the last hour
 * against its interval, rows and dead letters per hour, its last maintenance runs, and the last errors of the
 * delivery log. Never a record payload: the delivery log has none.
 */
@ApplicationScoped
public class StatusConsole {

    private final ChannelRegistry channels;
    private final ConsoleHistory history;
    private final ObjectMapper json;
    private final byte[] page;

    StatusConsole(ChannelRegistry channels, ConsoleHistory history, ObjectMapper json) {
        this.channels = channels;
        this.history = history;
        this.json = json;
        try (InputStream in = StatusConsole.class.getResourceAsStream("console.html")) {
            this.page = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    void routes(@Observes ManagementInterface management) {
        management.router().get("/console").handler(rc -> rc.response()
                .putHeader("Content-Type", "text/html; charset=utf-8")
                .putHeader("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; "
                        + "style-src 'unsafe-inline'")
                .end(io.vertx.core.buffer.Buffer.buffer(page)));
        management.router().get("/console/status.json").blockingHandler(rc -> rc.response()
                .putHeader("Content-Type", "application/json").putHeader("Cache-Control", "no-store")
                .end(status().toString()));
    }

    ObjectNode status() {
        ObjectNode out = json.createObjectNode();
        out.put("now", Instant.now().getEpochSecond());
        ArrayNode list = out.putArray("channels");
        channels.all().stream().sorted(Comparator.comparing(e -> e.channel().name())).forEach(e -> {
            String arn = e.channel().arn();
            ObjectNode c = list.addObject();
            c.put("arn", arn);
            c.put("name", e.channel().name());
            c.put("status", e.status().name());
            c.put("reason", e.statusReason());
            c.put("table", e.channel().table().toString());
            c.put("freshnessIntervalSeconds", e.channel().freshnessSeconds());
            ArrayNode freshness = c.putArray("freshness");
            history.freshness(arn).forEach(p -> freshness.addArray().add(p.at()).add(p.value()));
            ArrayNode hours = c.putArray("hours");
            history.hours(arn).forEach(h -> hours.addObject().put("hour", h.hour()).put("rows", h.rows())
                    .put("deadLetters", h.deadLetters()));
            c.putArray("maintenance").addAll(history.maintenance(arn));
        });
        out.putArray("errors").addAll(history.errors());
        return out;
    }
}
