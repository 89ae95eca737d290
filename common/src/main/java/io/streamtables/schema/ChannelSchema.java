package io.streamtables.schema;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A version of a channel's JSON Schema and the Iceberg schema it maps to, checked against the partition rule (SPEC
 * S8) and for patterns that run in linear time ({@link SchemaPatterns}). {@code versionId} is the registry's id of
 * the version, null for a schema given as a JSON tree alone (tests, benches).
 */
public record ChannelSchema(UUID versionId, JsonNode json, Schema iceberg, String partitionSource) {

    /** The partition source field is not as SPEC S8 wants it: a version that changes it is incompatible. */
    public static final class PartitionFieldException extends UnsupportedSchemaException {
        PartitionFieldException(String pointer, String message) {
            super(pointer, message);
        }
    }

    public static ChannelSchema of(SchemaSource.SchemaVersion version, String partitionSource) {
        return of(version.id(), version.definition(), partitionSource);
    }

    public static ChannelSchema of(JsonNode json, String partitionSource) {
        return of(null, json, partitionSource);
    }

    private static ChannelSchema of(UUID versionId, JsonNode json, String partitionSource) {
        Schema iceberg = JsonSchemaMapper.toIceberg(json);
        SchemaPatterns.check(json);
        Types.NestedField field = iceberg.findField(partitionSource);
        String pointer = "/properties/" + partitionSource;
        if (field == null || iceberg.asStruct().field(partitionSource) == null) {
            throw new PartitionFieldException(pointer, "the partition source field '" + partitionSource
                    + "' is not a top-level property of the schema");
        }
        if (field.type().typeId() != Type.TypeID.TIMESTAMP || !((Types.TimestampType) field.type()).shouldAdjustToUTC()) {
            throw new PartitionFieldException(pointer, "the partition source field must be a string with \"format\": \"date-time\"");
        }
        if (field.isOptional()) {
            throw new PartitionFieldException(pointer, "the partition source field must be listed in 'required'");
        }
        return new ChannelSchema(versionId, json, iceberg, partitionSource);
    }
}
