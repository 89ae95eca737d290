package io.streamtables.schema;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamtables.channel.Channel;
import java.util.UUID;

/** Where schemas come from: a Glue Schema Registry API (AWS Glue or our own), by ARN or by version id. */
public interface SchemaSource {

    /** A schema version: the schema it belongs to and its JSON Schema. */
    record SchemaVersion(UUID id, String schemaArn, JsonNode definition) {
    }

    /**
     * The latest version of the schema.
     *
     * @throws SchemaNotFoundException when the registry does not have it
     * @throws RegistryUnavailableException when the registry cannot be reached; try again later
     */
    SchemaVersion latest(String schemaArn);

    /**
     * A version by the id a Glue Schema Registry serializer wrote into the record.
     *
     * @throws SchemaNotFoundException when the registry does not have it
     * @throws RegistryUnavailableException when the registry cannot be reached; try again later
     */
    SchemaVersion version(UUID versionId);

    /**
     * Asks the registry anything, as the service: any answer counts, a refusal too (a channel's lookups sign as its
     * role and say more). A source that calls no peer has nothing to ask.
     *
     * @throws RegistryUnavailableException when the registry cannot be reached
     */
    default void ping() {
    }

    /** {@link #latest(String)} of the channel's schema, asked as the channel (its role, where the source takes it). */
    default SchemaVersion latest(Channel channel) {
        return latest(channel.schemaArn());
    }

    /** {@link #version(UUID)} named by one of the channel's records, asked as the channel. */
    default SchemaVersion version(UUID versionId, Channel channel) {
        return version(versionId);
    }

    /** The registry does not hold the schema or version asked for: a definite answer. */
    class SchemaNotFoundException extends IllegalArgumentException {
        public SchemaNotFoundException(String message) {
            super(message);
        }
    }

    /** The registry did not answer: records wait, they are not dead-lettered. */
    class RegistryUnavailableException extends IllegalStateException {
        public RegistryUnavailableException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
