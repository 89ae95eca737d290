package io.streamtables.schema;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.config.AwsClients;
import io.streamtables.config.DeliveryConfig;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.EntityNotFoundException;
import software.amazon.awssdk.services.glue.model.GetSchemaVersionResponse;
import software.amazon.awssdk.services.glue.model.GlueException;

/**
 * Schemas through the official AWS SDK Glue client, so the same code reaches AWS Glue or a Glue-compatible
 * registry. Versions never change once registered, so they are cached for good.
 */
public class GlueSchemaSource implements SchemaSource, AutoCloseable {

    private final GlueClient glue;
    private final ObjectMapper json;
    private final Map<UUID, SchemaVersion> versions = new ConcurrentHashMap<>();

    public GlueSchemaSource(SchemaRegistryConfig config, DeliveryConfig delivery, ObjectMapper json) {
        this(AwsClients.build(GlueClient.builder(), config, "delivery.schema-registry", delivery.region()), json);
    }

    GlueSchemaSource(GlueClient glue, ObjectMapper json) {
        this.glue = glue;
        this.json = json;
    }

    @Override
    public SchemaVersion latest(String schemaArn) {
        return remember(call("schema " + schemaArn, () -> glue.getSchemaVersion(r -> r
                .schemaId(id -> id.schemaArn(schemaArn))
                .schemaVersionNumber(n -> n.latestVersion(true)))));
    }

    @Override
    public SchemaVersion version(UUID versionId) {
        SchemaVersion cached = versions.get(versionId);
        return cached != null ? cached
                : remember(call("schema version " + versionId,
                        () -> glue.getSchemaVersion(r -> r.schemaVersionId(versionId.toString()))));
    }

    private SchemaVersion remember(GetSchemaVersionResponse r) {
        JsonNode definition;
        try {
            definition = json.readTree(r.schemaDefinition());
        } catch (JsonProcessingException e) {
            throw new SchemaNotFoundException("schema " + r.schemaArn() + " version " + r.versionNumber()
                    + " is not a JSON Schema");
        }
        SchemaVersion version = new SchemaVersion(UUID.fromString(r.schemaVersionId()), r.schemaArn(), definition);
        versions.put(version.id(), version);
        return version;
    }

    private static GetSchemaVersionResponse call(String what, java.util.function.Supplier<GetSchemaVersionResponse> call) {
        try {
            return call.get();
        } catch (EntityNotFoundException e) {
            throw new SchemaNotFoundException(what + " not found in the schema registry");
        } catch (SdkClientException e) {
            throw new RegistryUnavailableException("the schema registry is not reachable: " + e.getMessage(), e);
        } catch (GlueException e) {
            if (e.statusCode() >= 500 || e.isThrottlingException()) {
                throw new RegistryUnavailableException("the schema registry failed: " + e.getMessage(), e);
            }
            throw new SchemaNotFoundException(what + ": " + e.awsErrorDetails().errorMessage());
        }
    }

    @Override
    public void close() {
        glue.close();
    }
}
