package io.streamtables.schema;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.config.DeliveryConfig;
import io.streamtables.roles.ChannelRoles;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.nio.file.Path;

/** {@code delivery.schema-registry.source}: {@code glue} (the Glue API) or {@code local} (schema files). */
public class SchemaSourceProducer {

    @Produces
    @Singleton
    SchemaSource schemaSource(SchemaRegistryConfig config, DeliveryConfig delivery, ObjectMapper json,
            ChannelRoles roles) {
        return configured(config, delivery, json, roles);
    }

    /** The source {@code delivery.schema-registry.*} describes, asked through its API. */
    public static SchemaSource configured(SchemaRegistryConfig config, DeliveryConfig delivery, ObjectMapper json,
            ChannelRoles roles) {
        return switch (config.source()) {
            case "glue" -> new GlueSchemaSource(config, delivery, json,
                    config.signsAsChannelRole() ? roles::override : channel -> null);
            case "local" -> new LocalSchemaSource(Path.of(delivery.schemasDir()), json);
            default -> throw new IllegalArgumentException("delivery.schema-registry.source must be glue or local, not '"
                    + config.source() + "'");
        };
    }
}
