package io.streamtables.schema;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A channel's JSON Schema and the Iceberg schema it maps to, checked against the partition rule (SPEC S8) and for
 * patterns that run in linear time ({@link SchemaPatterns}).
 */
public record ChannelSchema(JsonNode json, Schema iceberg, String partitionSource) {

    public static ChannelSchema of(JsonNode json, String partitionSource) {
        Schema iceberg = JsonSchemaMapper.toIceberg(json);
        SchemaPatterns.check(json);
        Types.NestedField field = iceberg.findField(partitionSource);
        String pointer = "/properties/" + partitionSource;
        if (field == null || iceberg.asStruct().field(partitionSource) == null) {
            throw new UnsupportedSchemaException(pointer, "the partition source field '" + partitionSource
                    + "' is not a top-level property of the schema");
        }
        if (field.type().typeId() != Type.TypeID.TIMESTAMP || !((Types.TimestampType) field.type()).shouldAdjustToUTC()) {
            throw new UnsupportedSchemaException(pointer, "the partition source field must be a string with \"format\": \"date-time\"");
        }
        if (field.isOptional()) {
            throw new UnsupportedSchemaException(pointer, "the partition source field must be listed in 'required'");
        }
        return new ChannelSchema(json, iceberg, partitionSource);
    }
}
