package io.streamtables.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.bus.ErrorCode;
import io.streamtables.schema.JsonSchemaMapper;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class RowConverterTest {

    // Parsed the way convert-service parses records: floats as BigDecimal, so decimals stay exact.
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private static final String SCHEMA = """
            {"type": "object", "required": ["id", "ts"], "properties": {
              "id":      {"type": "integer", "maximum": 2147483647},
              "big":     {"type": "integer"},
              "ts":      {"type": "string", "format": "date-time"},
              "day":     {"type": "string", "format": "date"},
              "at":      {"type": "string", "format": "time"},
              "uid":     {"type": "string", "format": "uuid"},
              "blob":    {"type": "string", "encoding": "base64"},
              "price":   {"type": "number", "multipleOf": 0.01},
              "ratio":   {"type": "number"},
              "ok":      {"type": "boolean"},
              "name":    {"type": ["string", "null"]},
              "address": {"type": "object", "required": ["city"], "properties": {
                           "city": {"type": "string"}, "zip": {"type": "integer", "maximum": 99999}}},
              "tags":    {"type": "array", "items": {"type": "string"}},
              "attrs":   {"type": "object", "additionalProperties": {"type": "integer"}}
            }}""";

    private static final RowConverter CONVERTER;

    static {
        try {
            JsonNode json = JSON.readTree(SCHEMA);
            CONVERTER = new RowConverter(JsonSchemaMapper.toIceberg(json), json);
        } catch (Exception e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static Record convert(String json) throws Exception {
        return CONVERTER.convert(JSON.readTree(json));
    }

    /** A document with {@code field} and the required columns it does not set itself. */
    private static String withRequired(String field) {
        return "{\"ts\": \"2024-05-01T10:00:00Z\", " + (field.startsWith("\"id\"") ? "" : "\"id\": 1, ") + field + "}";
    }

    private static ConversionException failure(String json) throws Exception {
        var doc = JSON.readTree(json);
        return assertThrows(ConversionException.class, () -> CONVERTER.convert(doc));
    }

    @Test
    void convertsEveryColumnType() throws Exception {
        Record r = convert("""
                {"id": 7, "big": 9007199254740993, "ts": "2024-05-01T10:00:00Z", "day": "2024-02-29",
                 "uid": "6f1c8e3a-2b4d-4c8e-9a1b-0c2d3e4f5a6b", "blob": "AQID", "price": 12.3, "ratio": 0.25,
                 "ok": true, "name": "Ada",
                 "address": {"city": "Paris", "zip": 75001},
                 "tags": ["a", null, "c"],
                 "attrs": {"x": 1, "y": null}}""");
        assertEquals(7, r.getField("id"));
        assertEquals(9007199254740993L, r.getField("big"));
        assertEquals(OffsetDateTime.of(2024, 5, 1, 10, 0, 0, 0, ZoneOffset.UTC), r.getField("ts"));
        assertEquals(LocalDate.of(2024, 2, 29), r.getField("day"));
        assertEquals(UUID.fromString("6f1c8e3a-2b4d-4c8e-9a1b-0c2d3e4f5a6b"), r.getField("uid"));
        assertEquals(ByteBuffer.wrap(new byte[] {1, 2, 3}), r.getField("blob"));
        // the column's scale, not the literal's: Iceberg refuses a BigDecimal of another scale
        assertEquals(new BigDecimal("12.30"), r.getField("price"));
        assertEquals(0.25, r.getField("ratio"));
        assertEquals(true, r.getField("ok"));
        assertEquals(StringValues.of("Ada"), r.getField("name"));
        Record address = (Record) r.getField("address");
        assertEquals(StringValues.of("Paris"), address.getField("city"));
        assertEquals(75001, address.getField("zip"));
        assertEquals(Arrays.asList(StringValues.of("a"), null, StringValues.of("c")), r.getField("tags"));
        Map<Object, Object> attrs = new LinkedHashMap<>();
        attrs.put(StringValues.of("x"), 1L);
        attrs.put(StringValues.of("y"), null);
        assertEquals(attrs, r.getField("attrs"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"2024-05-01T15:30:00+05:30", "2024-05-01T10:00:00Z", "2024-05-01T10:00:00-00:00",
            "2024-05-01T05:00:00-05:00", "2024-05-01t10:00:00z"})
    void timestampsBecomeTheSameInstantAtUtc(String ts) throws Exception {
        Object value = convert("{\"id\": 1, \"ts\": \"" + ts + "\"}").getField("ts");
        assertEquals(OffsetDateTime.of(2024, 5, 1, 10, 0, 0, 0, ZoneOffset.UTC), value);
    }

    @Test
    void missingAndNullOptionalsAreNull() throws Exception {
        Record r = convert("{\"id\": 1, \"ts\": \"2024-05-01T10:00:00Z\", \"name\": null}");
        for (String column : List.of("big", "day", "at", "uid", "blob", "price", "ratio", "ok", "name", "address",
                "tags", "attrs")) {
            assertNull(r.getField(column), column);
        }
    }

    @Test
    void missingRequiredFieldFails() throws Exception {
        ConversionException e = failure("{\"id\": 1}");
        assertEquals(ErrorCode.TYPE_CONVERSION_FAILED, e.code());
        assertEquals("/ts", e.field());
        ConversionException nested = failure("{\"id\": 1, \"ts\": \"2024-05-01T10:00:00Z\", \"address\": {}}");
        assertEquals("/address/city", nested.field());
    }

    static Stream<Arguments> outOfRange() {
        return Stream.of(
                Arguments.of("\"id\": 2147483648", "/id"),
                Arguments.of("\"id\": -2147483649", "/id"), // no minimum: the low side fails too (T0)
                Arguments.of("\"big\": 1234567890123456789012345", "/big"),
                Arguments.of("\"big\": 1.5", "/big"),
                Arguments.of("\"address\": {\"city\": \"x\", \"zip\": 2147483648}", "/address/zip"),
                Arguments.of("\"attrs\": {\"a/b\": 9223372036854775808}", "/attrs/*"),
                Arguments.of("\"price\": 12.345", "/price"), // 3 places in a scale-2 column: no rounding
                Arguments.of("\"price\": 1e40", "/price"), // over 38 digits
                Arguments.of("\"ratio\": 1e400", "/ratio")); // infinite as a double
    }

    @ParameterizedTest
    @MethodSource
    void outOfRange(String field, String pointer) throws Exception {
        ConversionException e = failure(withRequired(field));
        assertEquals(ErrorCode.TYPE_CONVERSION_FAILED, e.code());
        assertEquals(pointer, e.field());
    }

    /** Huge exponents are refused at once: expanding 10^99999999 would hold a shard's thread for minutes. */
    @Test
    void hugeExponentsFailFast() throws Exception {
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(10), () -> {
            assertEquals("/big is not an integer in the range of the long column",
                    failure(withRequired("\"big\": 1e99999999")).getMessage());
            assertEquals("/big", failure(withRequired("\"big\": 1.5e-99999999")).field());
            assertEquals(0L, convert(withRequired("\"big\": 0e-99999999")).getField("big"));
            assertEquals(100L, convert(withRequired("\"big\": 1.00e2")).getField("big"));
            assertEquals("/price is not an integer in the range of the decimal(38, 2) column",
                    failure(withRequired("\"price\": 1e99999999")).getMessage());
            assertEquals("/price has more decimal places than decimal(38, 2) holds",
                    failure(withRequired("\"price\": 1e-99999999")).getMessage());
            assertEquals(new BigDecimal("0.00"), convert(withRequired("\"price\": 0e99999999")).getField("price"));
            assertEquals(new BigDecimal("1200.00"), convert(withRequired("\"price\": 12e2")).getField("price"));
        });
    }

    static Stream<Arguments> wrongTypes() {
        return Stream.of(
                Arguments.of("\"big\": \"SECRET\"", "/big"),
                Arguments.of("\"id\": \"SECRET\"", "/id"),
                Arguments.of("\"price\": \"SECRET\"", "/price"),
                Arguments.of("\"ratio\": \"SECRET\"", "/ratio"),
                Arguments.of("\"ok\": \"SECRET\"", "/ok"),
                Arguments.of("\"day\": \"SECRET\"", "/day"),
                Arguments.of("\"at\": \"SECRET\"", "/at"),
                Arguments.of("\"uid\": \"SECRET\"", "/uid"),
                Arguments.of("\"blob\": \"SECRET!*\"", "/blob"),
                Arguments.of("\"name\": {\"SECRET\": 1}", "/name"),
                Arguments.of("\"tags\": [\"a\", {\"k\": \"SECRET\"}]", "/tags/1"),
                Arguments.of("\"tags\": \"SECRET\"", "/tags"),
                Arguments.of("\"attrs\": {\"k\": \"SECRET\"}", "/attrs/*"),
                Arguments.of("\"address\": {\"city\": \"x\", \"zip\": \"SECRET\"}", "/address/zip"),
                Arguments.of("\"address\": \"SECRET\"", "/address"));
    }

    @ParameterizedTest
    @MethodSource
    void wrongTypes(String field, String pointer) throws Exception {
        ConversionException e = failure(withRequired(field));
        assertEquals(ErrorCode.TYPE_CONVERSION_FAILED, e.code());
        assertEquals(pointer, e.field());
        assertFalse(e.getMessage().contains("SECRET"), e::getMessage);
    }

    /** SPEC D2: the payload never leaves the delivery path, not even in an error message. */
    @Test
    void badTimestampMessageHoldsNoValue() throws Exception {
        ConversionException e = failure("{\"id\": 1, \"ts\": \"SECRET-05-01T10:00:00Z\"}");
        assertEquals("/ts", e.field());
        assertFalse(e.getMessage().contains("SECRET"), e::getMessage);
    }

    // networknt (convert-service's validator, draft-07 dialect) accepts "10:15:30Z" as a "time" and refuses
    // "10:15:30": RFC 3339 full-time carries an offset. A valid record must convert.
    @Test
    void timeWithRfc3339OffsetConverts() throws Exception {
        Record r = convert("{\"id\": 1, \"ts\": \"2024-05-01T10:00:00Z\", \"at\": \"10:15:30Z\"}");
        assertEquals(LocalTime.of(10, 15, 30), r.getField("at"));
    }

    // JSON Schema draft-06+ counts 1.0 as an integer, so such a record passes validation and fits the column.
    @Test
    void integralValuedNumberConvertsToInt() throws Exception {
        Record r = convert("{\"id\": 1.0, \"ts\": \"2024-05-01T10:00:00Z\", \"big\": 1e2}");
        assertEquals(1, r.getField("id"));
        assertEquals(100L, r.getField("big"));
    }

    /**
     * SPEC T: an enum's column is a string, whatever its type, holding each value as its JSON text: a string as
     * itself, a number as its plain decimal (1.0 and 1e0 are the enum's 1), a boolean, an object compact; null is null.
     */
    @Test
    void enumValuesAreTheirJsonText() throws Exception {
        JsonNode schema = JSON.readTree("""
                {"type": "object", "properties": {
                  "n":    {"type": "integer", "maximum": 9, "enum": [1, 2, 100]},
                  "ok":   {"type": "boolean", "enum": [true, false]},
                  "s":    {"type": "string", "enum": ["a", "1"]},
                  "any":  {"enum": [0.25, "x", {"k": [1]}, null]},
                  "ns":   {"type": "array", "items": {"type": ["integer", "null"], "enum": [1, 2, null]}},
                  "m":    {"type": "object", "additionalProperties": {"enum": [true]}},
                  "text": {"type": "string"}
                }}""");
        RowConverter converter = new RowConverter(JsonSchemaMapper.toIceberg(schema), schema);
        Record r = converter.convert(JSON.readTree("""
                {"n": 1, "ok": false, "s": "a", "any": {"k": [1]}, "ns": [1.0, null, 2e0], "m": {"x": true}}"""));
        assertEquals(StringValues.of("1"), r.getField("n"));
        assertEquals(StringValues.of("false"), r.getField("ok"));
        assertEquals(StringValues.of("a"), r.getField("s"), "a string as itself, not quoted");
        assertEquals(StringValues.of("{\"k\":[1]}"), r.getField("any"));
        assertEquals(Arrays.asList(StringValues.of("1"), null, StringValues.of("2")), r.getField("ns"));
        assertEquals(Map.of(StringValues.of("x"), StringValues.of("true")), r.getField("m"));
        assertEquals(StringValues.of("100"), converter.convert(JSON.readTree("{\"n\": 1e2}")).getField("n"));
        assertEquals(StringValues.of("0.25"), converter.convert(JSON.readTree("{\"any\": 0.250}")).getField("any"));
        assertNull(converter.convert(JSON.readTree("{\"any\": null}")).getField("any"));
        // a string column of no enum still takes strings only
        ConversionException e = assertThrows(ConversionException.class,
                () -> converter.convert(JSON.readTree("{\"text\": 1}")));
        assertEquals("/text", e.field());
    }

    // Fractional seconds up to nanoseconds are accepted and stored as UTC microseconds (the column's precision).
    @Test
    void timestampsWithNanosecondsAreStoredAsMicroseconds() throws Exception {
        Record r = convert("{\"id\": 1, \"ts\": \"2024-05-01T10:00:00.123456789+05:30\", \"at\": \"10:15:30.0000019Z\"}");
        assertEquals(OffsetDateTime.parse("2024-05-01T04:30:00.123456Z"), r.getField("ts"));
        assertEquals(java.time.LocalTime.of(10, 15, 30, 1_000), r.getField("at"));
    }
}
