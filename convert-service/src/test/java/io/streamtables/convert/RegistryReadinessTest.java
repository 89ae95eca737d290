package io.streamtables.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.schema.SchemaSource;
import java.util.UUID;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.Test;

class RegistryReadinessTest {

    private volatile boolean reachable = true;
    private final SchemaSource registry = new SchemaSource() {
        @Override
        public SchemaVersion latest(String schemaArn) {
            throw new UnsupportedOperationException();
        }

        @Override
        public SchemaVersion version(UUID versionId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void ping() {
            if (!reachable) {
                throw new RegistryUnavailableException("the schema registry is not reachable: Connection refused",
                        null);
            }
        }
    };

    @Test
    void notReadyWhileTheRegistryDoesNotAnswer() {
        RegistryReadiness readiness = new RegistryReadiness(registry);
        assertEquals(HealthCheckResponse.Status.UP, readiness.call().getStatus());

        reachable = false;
        HealthCheckResponse down = readiness.call();
        assertEquals(HealthCheckResponse.Status.DOWN, down.getStatus());
        assertEquals("schema-registry", down.getName());
        assertTrue(down.getData().orElseThrow().get("error").toString().contains("Connection refused"), down.getData()
                .toString());
        assertTrue(down.getData().orElseThrow().get("fix").toString().contains("delivery.schema-registry"));

        reachable = true;
        assertEquals(HealthCheckResponse.Status.UP, readiness.call().getStatus());
    }
}
