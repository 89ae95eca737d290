package io.streamtables.channel;

import io.quarkus.logging.json.runtime.JsonFormatter;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.logging.Handler;
import java.util.logging.Logger;
import org.jboss.logmanager.formatters.PatternFormatter;

/**
 * Keeps the delivery log one JSON object per line when the service's own log is JSON lines
 * ({@code quarkus.log.console.json.enabled}): quarkus-logging-json formats every console handler, the delivery
 * category's too, which would wrap each delivery line in a line of its own. Its handler prints just the line again.
 */
@ApplicationScoped
class DeliveryLogLines {

    void start(@Observes @Priority(1) StartupEvent event) {
        for (Handler handler : Logger.getLogger(DeliveryLog.CATEGORY).getHandlers()) {
            if (handler.getFormatter() instanceof JsonFormatter) {
                handler.setFormatter(new PatternFormatter("%s%n"));
            }
        }
    }
}
