package io.streamtables.schema;

import com.fasterxml.jackson.databind.JsonNode;

/** Where a channel's JSON Schema comes from, by its {@code GSRSchemaARN}. */
public interface SchemaSource {

    /** The latest definition of the schema. */
    JsonNode definition(String schemaArn);
}
