package io.streamtables.registry;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamtables.api.AwsApiException;
import io.streamtables.auth.Caller;
import io.streamtables.schema.RegistryMisses;
import io.streamtables.schema.SchemaRegistryConfig;
import io.streamtables.schema.SchemaSource;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.UUID;

/**
 * The registry this service serves, asked in process: {@link GlueRegistryApi}'s GetSchemaVersion, with the rights of
 * the stages' lookups (every account's schemas). A CreateChannel, an activation or (in the all-in-one) a stage that
 * asked this same server over HTTP would hold a worker thread while waiting for another: as many concurrent
 * creates as worker threads stalled the API, and every lookup with it.
 */
public final class ServedSchemaSource implements SchemaSource {

    private final GlueRegistryApi registry;
    private final ObjectMapper json;
    private final Caller lookups;
    private final RegistryMisses misses = new RegistryMisses(System::currentTimeMillis);

    ServedSchemaSource(GlueRegistryApi registry, ObjectMapper json, String operatorAccount) {
        this.registry = registry;
        this.json = json;
        this.lookups = new Caller(null, operatorAccount, true);
    }

    /** Whether {@code delivery.schema-registry.*} names the registry this service serves on {@code port}. */
    static boolean isServedHere(SchemaRegistryConfig config, int port) {
        return config.source().equals("glue") && config.endpointOverride().map(endpoint -> config.servedHere()
                .orElseGet(() -> isThisService(endpoint, port))).orElse(false);
    }

    /** Whether {@code endpoint} is this service: a loopback address on its API port. */
    public static boolean isThisService(URI endpoint, int port) {
        try {
            return endpoint.getPort() == port && endpoint.getHost() != null
                    && InetAddress.getByName(endpoint.getHost()).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    @Override
    public SchemaVersion latest(String schemaArn) {
        ObjectNode request = json.createObjectNode();
        request.putObject("SchemaId").put("SchemaArn", schemaArn);
        request.putObject("SchemaVersionNumber").put("LatestVersion", true);
        return ask(request, "schema " + schemaArn);
    }

    /** An id the registry said it does not hold is not asked again for a while, as {@code GlueSchemaSource} does. */
    @Override
    public SchemaVersion version(UUID versionId) {
        String what = "schema version " + versionId;
        if (misses.known(versionId)) {
            throw new SchemaNotFoundException(what + " not found in the schema registry");
        }
        try {
            return ask(json.createObjectNode().put("SchemaVersionId", versionId.toString()), what);
        } catch (SchemaNotFoundException e) {
            misses.remember(versionId);
            throw e;
        }
    }

    private SchemaVersion ask(ObjectNode request, String what) {
        JsonNode answer;
        try {
            answer = json.valueToTree(registry.handle("GetSchemaVersion", request, lookups));
        } catch (AwsApiException e) {
            if (e.status() >= 500) {
                throw new RegistryUnavailableException("the schema registry failed: " + e.getMessage(), e);
            }
            throw new SchemaNotFoundException(e.type().equals("EntityNotFoundException")
                    ? what + " not found in the schema registry" : what + ": " + e.getMessage());
        } catch (RuntimeException e) { // the service database
            throw new RegistryUnavailableException("the schema registry failed: " + e.getMessage(), e);
        }
        try {
            return new SchemaVersion(UUID.fromString(answer.path("SchemaVersionId").asText()),
                    answer.path("SchemaArn").asText(), json.readTree(answer.path("SchemaDefinition").asText()));
        } catch (JsonProcessingException e) {
            throw new SchemaNotFoundException(what + " is not a JSON Schema");
        }
    }
}
