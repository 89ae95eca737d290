package io.streamtables.health;

import io.streamtables.config.Secrets;
import java.util.concurrent.Callable;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;

/** A readiness check that calls a peer: UP when the call answers, DOWN with the reason when it fails. */
public final class Probe {

    private Probe() {
    }

    public static HealthCheckResponse of(String name, String fix, Callable<?> call) {
        HealthCheckResponseBuilder response = HealthCheckResponse.named(name);
        try {
            call.call();
            return response.up().build();
        } catch (Exception e) {
            return response.down().withData("error", e.getClass().getSimpleName() + ": " + Secrets.redact(e.getMessage()))
                    .withData("fix", fix).build();
        }
    }
}
