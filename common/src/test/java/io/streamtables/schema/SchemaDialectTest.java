package io.streamtables.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** SPEC F4: draft-04 and draft-07, by the names the validator reads; any other {@code $schema} is refused. */
class SchemaDialectTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode schema(String dialect) throws Exception {
        return JSON.readTree("{\"$schema\": " + dialect + ", \"type\": \"object\"}");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "\"http://json-schema.org/draft-04/schema#\" | DRAFT_4",
        "\"http://json-schema.org/draft-04/schema\"  | DRAFT_4",
        "\"http://json-schema.org/draft-07/schema#\" | DRAFT_7",
        "\"http://json-schema.org/draft-07/schema\"  | DRAFT_7",
    })
    void readsTheTwoDialects(String dialect, SchemaDialect expected) throws Exception {
        assertEquals(expected, SchemaDialect.of(schema(dialect)));
    }

    @Test
    void noDialectIsDraft7() throws Exception {
        assertEquals(SchemaDialect.DRAFT_7, SchemaDialect.of(JSON.readTree("{\"type\": \"object\"}")));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"\"https://json-schema.org/draft/2020-12/schema\"", "\"http://json-schema.org/draft-06/schema#\"",
        "\"https://json-schema.org/draft-07/schema#\"", "\"http://json-schema.org/schema#\"", "7", "null"})
    void refusesAnyOther(String dialect) throws Exception {
        JsonNode json = schema(dialect);
        UnsupportedSchemaException e = assertThrows(UnsupportedSchemaException.class, () -> SchemaDialect.of(json));
        assertTrue(e.getMessage().startsWith("schema root: $schema must be draft-04 (http://json-schema.org/draft-04/"
                + "schema#) or draft-07 (http://json-schema.org/draft-07/schema#, the default): got "), e.getMessage());
        assertTrue(e.getMessage().endsWith(dialect.replace("\"", "")), e.getMessage());
    }
}
