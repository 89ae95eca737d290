package io.streamtables.convert;

import io.streamtables.health.Probe;
import io.streamtables.schema.SchemaSource;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** The schema registry answers: without it no record can be validated, and records wait (SPEC O2). */
@Readiness
@ApplicationScoped
public class RegistryReadiness implements HealthCheck {

    private final SchemaSource registry;

    public RegistryReadiness(SchemaSource registry) {
        this.registry = registry;
    }

    @Override
    public HealthCheckResponse call() {
        return Probe.of("schema-registry", "check delivery.schema-registry.endpoint-override, the network and the "
                + "credentials", () -> {
                    registry.ping();
                    return null;
                });
    }
}
