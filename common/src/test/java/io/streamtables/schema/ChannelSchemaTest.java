package io.streamtables.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.stream.Stream;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** SPEC S8: the partition source must be a required top-level date-time. */
class ChannelSchemaTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode schema(String tsFragment, String required) throws Exception {
        return JSON.readTree("{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},\"ts\":" + tsFragment
                + ",\"inner\":{\"type\":\"object\",\"properties\":{\"at\":{\"type\":\"string\",\"format\":\"date-time\"}},"
                + "\"required\":[\"at\"]}},\"required\":" + required + "}");
    }

    @Test
    void acceptsRequiredDateTime() throws Exception {
        JsonNode json = schema("{\"type\":\"string\",\"format\":\"date-time\"}", "[\"ts\"]");
        ChannelSchema s = ChannelSchema.of(json, "ts");
        assertEquals("ts", s.partitionSource());
        assertEquals(json, s.json());
        Types.NestedField ts = s.iceberg().findField("ts");
        assertTrue(ts.isRequired());
        assertEquals(Types.TimestampType.withZone(), ts.type());
    }

    static Stream<Arguments> refusals() {
        String dateTime = "{\"type\":\"string\",\"format\":\"date-time\"}";
        return Stream.of(
                Arguments.of("missing field", dateTime, "[\"ts\"]", "created_at", "/properties/created_at"),
                Arguments.of("nested, not top-level", dateTime, "[\"ts\",\"inner\"]", "inner.at",
                        "/properties/inner.at"),
                Arguments.of("plain string", "{\"type\":\"string\"}", "[\"ts\"]", "ts", "/properties/ts"),
                Arguments.of("date, not date-time", "{\"type\":\"string\",\"format\":\"date\"}", "[\"ts\"]", "ts",
                        "/properties/ts"),
                Arguments.of("not required", dateTime, "[\"id\"]", "ts", "/properties/ts"),
                Arguments.of("nullable although required", "{\"type\":[\"string\",\"null\"],\"format\":\"date-time\"}",
                        "[\"ts\"]", "ts", "/properties/ts"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void refuses(String name, String tsFragment, String required, String source, String pointer) throws Exception {
        JsonNode json = schema(tsFragment, required);
        UnsupportedSchemaException e = assertThrows(UnsupportedSchemaException.class,
                () -> ChannelSchema.of(json, source));
        assertTrue(e.getMessage().contains(pointer + ":"), e::getMessage);
    }
}
