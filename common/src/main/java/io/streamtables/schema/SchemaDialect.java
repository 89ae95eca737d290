package io.streamtables.schema;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Set;

/**
 * SPEC F4: a schema is JSON Schema draft-04 or draft-07, as its {@code $schema} says (none: draft-07, the validator's
 * default). The one home of that rule: the registry refuses another dialect when a schema is registered, and the
 * mapping when a channel is created or decodes, for a schema that reached the registry another way.
 */
public enum SchemaDialect {
    DRAFT_4, DRAFT_7;

    // the names the validator (networknt) reads as these dialects
    private static final Set<String> DRAFT_4_URIS = Set.of("http://json-schema.org/draft-04/schema#",
            "http://json-schema.org/draft-04/schema");
    private static final Set<String> DRAFT_7_URIS = Set.of("http://json-schema.org/draft-07/schema#",
            "http://json-schema.org/draft-07/schema");

    /** @throws UnsupportedSchemaException naming {@code $schema} when it names another dialect */
    public static SchemaDialect of(JsonNode schema) {
        JsonNode uri = schema.get("$schema");
        if (uri == null || uri.isTextual() && DRAFT_7_URIS.contains(uri.textValue())) {
            return DRAFT_7;
        }
        if (uri.isTextual() && DRAFT_4_URIS.contains(uri.textValue())) {
            return DRAFT_4;
        }
        throw new UnsupportedSchemaException("", "$schema must be draft-04 (http://json-schema.org/draft-04/schema#) "
                + "or draft-07 (http://json-schema.org/draft-07/schema#, the default): got "
                + (uri.isTextual() ? uri.textValue() : uri.toString()));
    }
}
