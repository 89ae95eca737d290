package io.streamtables.health;

import io.streamtables.state.ChannelStore;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Every stage reads the channels from the service database. */
@Readiness
@ApplicationScoped
public class DatabaseReadiness implements HealthCheck {

    private final ChannelStore store;

    public DatabaseReadiness(ChannelStore store) {
        this.store = store;
    }

    @Override
    public HealthCheckResponse call() {
        return Probe.of("service database", "check delivery.database-url and that the database runs", () -> {
            store.ping();
            return null;
        });
    }
}
