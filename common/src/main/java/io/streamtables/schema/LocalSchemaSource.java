package io.streamtables.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.arc.DefaultBean;
import io.streamtables.channel.Arn;
import io.streamtables.config.DeliveryConfig;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A schema registry in a folder: {@code arn:aws:glue:R:A:schema/REGISTRY/SCHEMA} is the file
 * {@code <delivery.schemas-dir>/REGISTRY/SCHEMA.json}.
 */
@ApplicationScoped
@DefaultBean
public class LocalSchemaSource implements SchemaSource {

    private final Path dir;
    private final ObjectMapper json;

    public LocalSchemaSource(DeliveryConfig config, ObjectMapper json) {
        this.dir = Path.of(config.schemasDir());
        this.json = json;
    }

    @Override
    public JsonNode definition(String schemaArn) {
        String name = Arn.parse("GSRSchemaARN", schemaArn, "glue", "schema/",
                "arn:aws:glue:REGION:ACCOUNT:schema/REGISTRY/SCHEMA").resourceAfter("schema/");
        if (!name.matches("[A-Za-z0-9_.$#-]+/[A-Za-z0-9_.$#-]+")) {
            throw new IllegalArgumentException("GSRSchemaARN '" + schemaArn + "' must end in schema/REGISTRY/SCHEMA");
        }
        Path file = dir.resolve(name + ".json");
        try {
            return json.readTree(Files.readString(file));
        } catch (IOException e) {
            throw new IllegalArgumentException("Schema " + schemaArn + " not found: no readable file " + file.toAbsolutePath()
                    + " (delivery.schemas-dir)", e);
        }
    }
}
