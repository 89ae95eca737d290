package io.streamtables.schema;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.channel.Arn;
import io.streamtables.channel.Channel;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * Schemas in a folder, without a registry: {@code arn:aws:glue:R:A:schema/REGISTRY/SCHEMA} is the file
 * {@code <dir>/REGISTRY/SCHEMA.json}. Such a schema has one version, so only {@code JSON} channels can use it.
 */
public class LocalSchemaSource implements SchemaSource {

    private final Path dir;
    private final ObjectMapper json;

    public LocalSchemaSource(Path dir, ObjectMapper json) {
        this.dir = dir;
        this.json = json;
    }

    @Override
    public SchemaVersion latest(String schemaArn) {
        String name = Arn.parse("GSRSchemaARN", schemaArn, "glue", "schema/",
                "arn:aws:glue:REGION:ACCOUNT:schema/REGISTRY/SCHEMA").resourceAfter("schema/");
        if (!name.matches("[A-Za-z0-9_.$#-]+/[A-Za-z0-9_.$#-]+")) {
            throw new SchemaNotFoundException("GSRSchemaARN '" + schemaArn + "' must end in schema/REGISTRY/SCHEMA");
        }
        Path file = dir.resolve(name + ".json");
        try {
            return new SchemaVersion(UUID.nameUUIDFromBytes(schemaArn.getBytes(StandardCharsets.UTF_8)), schemaArn,
                    json.readTree(Files.readString(file)));
        } catch (IOException e) {
            throw new SchemaNotFoundException("schema " + schemaArn + " not found: no readable file "
                    + file.toAbsolutePath() + " (delivery.schemas-dir)");
        }
    }

    /** The id {@link #latest} gives the file's schema names it, as a pinned version. */
    @Override
    public SchemaVersion version(UUID versionId, Channel channel) {
        SchemaVersion only = latest(channel.schemaArn());
        if (only.id().equals(versionId)) {
            return only;
        }
        return version(versionId);
    }

    @Override
    public SchemaVersion version(UUID versionId) {
        throw new SchemaNotFoundException("schema version " + versionId + " not found: schemas read from files "
                + "have no registry versions (set delivery.schema-registry.source=glue)");
    }
}
