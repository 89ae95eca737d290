package io.streamtables.registry;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.config.DeliveryConfig;
import io.streamtables.roles.ChannelRoles;
import io.streamtables.schema.SchemaRegistryConfig;
import io.streamtables.schema.SchemaSource;
import io.streamtables.schema.SchemaSourceProducer;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Alternative;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Where the service that serves the registry reads schemas: in process when {@code delivery.schema-registry.*} names
 * this very registry ({@link ServedSchemaSource#isServedHere}), else as every stage does.
 */
public class ServedSchemaSourceProducer {

    @Produces
    @Singleton
    @Alternative
    @Priority(1)
    SchemaSource schemaSource(SchemaRegistryConfig config, DeliveryConfig delivery, ObjectMapper json,
            ChannelRoles roles, GlueRegistryApi registry, @ConfigProperty(name = "quarkus.http.port") int port) {
        return ServedSchemaSource.isServedHere(config, port)
                ? new ServedSchemaSource(registry, json, delivery.accountId())
                : SchemaSourceProducer.configured(config, delivery, json, roles);
    }
}
