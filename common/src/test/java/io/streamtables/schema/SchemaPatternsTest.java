package io.streamtables.schema;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** Schema patterns run on RE2/J: in linear time, and what it cannot run is refused with the schema. */
class SchemaPatternsTest {

    static final ObjectMapper JSON = new ObjectMapper();

    /** The classic catastrophic pattern: a backtracking engine needs about 2^40 steps for this input. */
    @Test
    void aCatastrophicPatternIsLinear() {
        var pattern = SchemaPatterns.compile("^(a+)+$", "/pattern");
        assertTrue(!pattern.matcher("a".repeat(40) + "b").find());
        assertTrue(pattern.matcher("a".repeat(40)).find());
    }

    @Test
    void lookaroundAndBackreferencesAreRefusedWithTheirPointer() throws Exception {
        for (String regex : new String[] {"^(?=a)a$", "(?<!x)y", "^(a)\\\\1$"}) {
            String schema = "{\"type\": \"object\", \"properties\": {\"c\": {\"type\": \"string\", \"pattern\": \"" + regex
                    + "\"}}, \"patternProperties\": {\"^x\": {}}}";
            UnsupportedSchemaException e = assertThrows(UnsupportedSchemaException.class,
                    () -> SchemaPatterns.check(JSON.readTree(schema)), regex);
            assertTrue(e.getMessage().startsWith("schema /properties/c/pattern: the pattern cannot run in linear time"),
                    e.getMessage());
        }
        UnsupportedSchemaException key = assertThrows(UnsupportedSchemaException.class, () -> SchemaPatterns.check(
                JSON.readTree("{\"type\": \"object\", \"patternProperties\": {\"(?=x)\": {}}}")));
        assertTrue(key.getMessage().startsWith("schema /patternProperties:"), key.getMessage());
    }

    @Test
    void valuesThatAreDataAreNotPatterns() throws Exception {
        var schema = JSON.readTree("{\"type\": \"object\", \"const\": {\"pattern\": \"(?=x)\"}, "
                + "\"properties\": {\"pattern\": {\"type\": \"string\", \"pattern\": \"^[a-z]+$\"}}}");
        assertDoesNotThrow(() -> SchemaPatterns.check(schema));
    }
}
