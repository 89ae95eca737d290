package io.streamtables.schema;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.benmanes.caffeine.cache.Cache;
import io.streamtables.channel.Channel;
import io.streamtables.config.AwsClients;
import io.streamtables.config.DeliveryConfig;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.LongSupplier;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.EntityNotFoundException;
import software.amazon.awssdk.services.glue.model.GetSchemaVersionResponse;
import software.amazon.awssdk.services.glue.model.GlueException;

/**
 * Schemas through the official AWS SDK Glue client, so the same code reaches AWS Glue or a Glue-compatible
 * registry. Versions never change once registered, so they are cached (within {@link VersionCaches}' bounds); a
 * version id the registry does not hold is remembered a while ({@link RegistryMisses}), so records naming an unknown
 * id (forged, or a serializer's misconfiguration) cost one lookup a while, not one each.
 */
public class GlueSchemaSource implements SchemaSource, AutoCloseable {

    /** Refusals of the caller (AWS answers some with 400): no answer about the schema. */
    private static final Set<String> CALLER_REFUSED = Set.of("UnrecognizedClientException",
            "InvalidSignatureException", "IncompleteSignatureException", "MissingAuthenticationTokenException",
            "ExpiredTokenException", "InvalidClientTokenId", "AccessDeniedException");

    private final GlueClient glue;
    private final Function<Channel, AwsRequestOverrideConfiguration> signAs;
    private final ObjectMapper json;
    private final Cache<UUID, SchemaVersion> versions;
    private final RegistryMisses misses;

    /**
     * @param signAs what makes a channel's lookup sign as its role; null from it: the service's own credentials
     */
    public GlueSchemaSource(SchemaRegistryConfig config, DeliveryConfig delivery, ObjectMapper json,
            Function<Channel, AwsRequestOverrideConfiguration> signAs) {
        this(AwsClients.build(GlueClient.builder(), config, "delivery.schema-registry", delivery.region()), json,
                System::currentTimeMillis, signAs, VersionCaches.of(config));
    }

    GlueSchemaSource(GlueClient glue, ObjectMapper json, LongSupplier clock,
            Function<Channel, AwsRequestOverrideConfiguration> signAs, VersionCaches bounds) {
        this.glue = glue;
        this.versions = bounds.cache(v -> VersionCaches.treeBytes(v.definition()));
        this.signAs = signAs;
        this.json = json;
        this.misses = new RegistryMisses(clock);
    }

    @Override
    public SchemaVersion latest(String schemaArn) {
        return latest(schemaArn, null);
    }

    @Override
    public SchemaVersion latest(Channel channel) {
        return latest(channel.schemaArn(), signAs.apply(channel));
    }

    @Override
    public SchemaVersion version(UUID versionId) {
        return version(versionId, (AwsRequestOverrideConfiguration) null);
    }

    /** A version is cached for every channel: a record of another schema's version is refused (RecordDecoder). */
    @Override
    public SchemaVersion version(UUID versionId, Channel channel) {
        return version(versionId, signAs.apply(channel));
    }

    @Override
    public void ping() {
        try {
            glue.listRegistries(r -> r.maxResults(1));
        } catch (GlueException answered) {
            // an answer, a refusal too: the registry is there
        } catch (SdkException e) {
            throw new RegistryUnavailableException("the schema registry is not reachable: " + e.getMessage(), e);
        }
    }

    private SchemaVersion latest(String schemaArn, AwsRequestOverrideConfiguration as) {
        return remember(call("schema " + schemaArn, () -> glue.getSchemaVersion(r -> r.overrideConfiguration(as)
                .schemaId(id -> id.schemaArn(schemaArn))
                .schemaVersionNumber(n -> n.latestVersion(true)))));
    }

    private SchemaVersion version(UUID versionId, AwsRequestOverrideConfiguration as) {
        SchemaVersion cached = versions.getIfPresent(versionId);
        if (cached != null) {
            return cached;
        }
        String what = "schema version " + versionId;
        if (misses.known(versionId)) {
            throw new SchemaNotFoundException(what + " not found in the schema registry");
        }
        try {
            return remember(call(what, () -> glue.getSchemaVersion(r -> r.overrideConfiguration(as)
                    .schemaVersionId(versionId.toString()))));
        } catch (SchemaNotFoundException e) {
            misses.remember(versionId);
            throw e;
        }
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
            if (e.statusCode() == 403 || CALLER_REFUSED.contains(e.awsErrorDetails().errorCode())) {
                // the lookup key or the channel's role, not the record: records wait until the operator fixes it
                throw new RegistryUnavailableException("the schema registry refused the lookup: " + e.getMessage(), e);
            }
            throw new SchemaNotFoundException(what + ": " + e.awsErrorDetails().errorMessage());
        } catch (SdkException e) { // STS refusing the channel's role, say
            throw new RegistryUnavailableException("the schema registry could not be asked: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        glue.close();
    }
}
