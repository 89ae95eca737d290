package io.streamtables.schema;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** SPEC table T: one case per mapping rule, and the schemas the mapping must refuse. */
class JsonSchemaMapperTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String DRAFT4 = "\"$schema\":\"http://json-schema.org/draft-04/schema#\",";

    /** A top-level object with one optional property {@code x}. */
    private static String optionalX(String fragment) {
        return "{\"type\":\"object\",\"properties\":{\"x\":" + fragment + "}}";
    }

    /** A top-level object with one property {@code x} listed in {@code required}. */
    private static String requiredX(String fragment) {
        return "{\"type\":\"object\",\"properties\":{\"x\":" + fragment + "},\"required\":[\"x\"]}";
    }

    private static Arguments optionalCase(String name, String fragment, Type expected) {
        return Arguments.of(name, optionalX(fragment), new Schema(optional(1, "x", expected)));
    }

    private static Arguments requiredCase(String name, String fragment, Type expected) {
        return Arguments.of(name, requiredX(fragment), new Schema(required(1, "x", expected)));
    }

    // Field ids are irrelevant here: the mapper numbers depth-first, the expectations are ad hoc.
    private static Types.StructType withoutIds(Schema schema) {
        return TypeUtil.assignIncreasingFreshIds(schema).asStruct();
    }

    static Stream<Arguments> mappings() {
        return Stream.of(
                requiredCase("string", "{\"type\":\"string\"}", Types.StringType.get()),
                requiredCase("date-time -> timestamptz", "{\"type\":\"string\",\"format\":\"date-time\"}",
                        Types.TimestampType.withZone()),
                requiredCase("date", "{\"type\":\"string\",\"format\":\"date\"}", Types.DateType.get()),
                requiredCase("time", "{\"type\":\"string\",\"format\":\"time\"}", Types.TimeType.get()),
                requiredCase("uuid", "{\"type\":\"string\",\"format\":\"uuid\"}", Types.UUIDType.get()),
                requiredCase("encoding base64 -> binary", "{\"type\":\"string\",\"encoding\":\"base64\"}",
                        Types.BinaryType.get()),
                requiredCase("encoding byte -> binary", "{\"type\":\"string\",\"encoding\":\"byte\"}",
                        Types.BinaryType.get()),
                requiredCase("contentEncoding base64 -> binary",
                        "{\"type\":\"string\",\"contentEncoding\":\"base64\"}", Types.BinaryType.get()),
                requiredCase("integer maximum 2^31-1 -> int", "{\"type\":\"integer\",\"maximum\":2147483647}",
                        Types.IntegerType.get()),
                requiredCase("integer maximum 2^31 -> long", "{\"type\":\"integer\",\"maximum\":2147483648}",
                        Types.LongType.get()),
                requiredCase("draft-07 exclusiveMaximum 2^31 -> int",
                        "{\"type\":\"integer\",\"exclusiveMaximum\":2147483648}", Types.IntegerType.get()),
                requiredCase("draft-07 exclusiveMaximum 2^31+1 -> long",
                        "{\"type\":\"integer\",\"exclusiveMaximum\":2147483649}", Types.LongType.get()),
                Arguments.of("draft-04 maximum 2^31 exclusive -> int",
                        "{" + DRAFT4 + "\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"integer\","
                                + "\"maximum\":2147483648,\"exclusiveMaximum\":true}},\"required\":[\"x\"]}",
                        new Schema(required(1, "x", Types.IntegerType.get()))),
                Arguments.of("draft-04 maximum 2^31 not exclusive -> long",
                        "{" + DRAFT4 + "\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"integer\","
                                + "\"maximum\":2147483648,\"exclusiveMaximum\":false}},\"required\":[\"x\"]}",
                        new Schema(required(1, "x", Types.LongType.get()))),
                requiredCase("integer without bounds -> long", "{\"type\":\"integer\"}", Types.LongType.get()),
                requiredCase("multipleOf 0.01 -> decimal(38,2)", "{\"type\":\"number\",\"multipleOf\":0.01}",
                        Types.DecimalType.of(38, 2)),
                requiredCase("multipleOf 0.5 -> decimal(38,1)", "{\"type\":\"number\",\"multipleOf\":0.5}",
                        Types.DecimalType.of(38, 1)),
                requiredCase("multipleOf 1 -> decimal(38,0)", "{\"type\":\"number\",\"multipleOf\":1}",
                        Types.DecimalType.of(38, 0)),
                requiredCase("plain number -> double", "{\"type\":\"number\"}", Types.DoubleType.get()),
                requiredCase("boolean", "{\"type\":\"boolean\"}", Types.BooleanType.get()),
                requiredCase("object with properties -> struct",
                        "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"},"
                                + "\"b\":{\"type\":\"integer\"}},\"required\":[\"a\"]}",
                        Types.StructType.of(required(2, "a", Types.StringType.get()),
                                optional(3, "b", Types.LongType.get()))),
                requiredCase("additionalProperties -> map<string,V>",
                        "{\"type\":\"object\",\"additionalProperties\":{\"type\":\"boolean\"}}",
                        Types.MapType.ofOptional(2, 3, Types.StringType.get(), Types.BooleanType.get())),
                requiredCase("array of strings -> list<string>",
                        "{\"type\":\"array\",\"items\":{\"type\":\"string\"}}",
                        Types.ListType.ofOptional(2, Types.StringType.get())),
                requiredCase("array of objects -> list<struct>",
                        "{\"type\":\"array\",\"items\":{\"type\":\"object\","
                                + "\"properties\":{\"n\":{\"type\":\"number\"}},\"required\":[\"n\"]}}",
                        Types.ListType.ofOptional(2,
                                Types.StructType.of(required(3, "n", Types.DoubleType.get())))),
                requiredCase("array of arrays -> list<list>",
                        "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"type\":\"boolean\"}}}",
                        Types.ListType.ofOptional(2, Types.ListType.ofOptional(3, Types.BooleanType.get()))),
                requiredCase("enum without type -> string", "{\"enum\":[\"A\",\"B\"]}", Types.StringType.get()),
                requiredCase("enum of integers -> string, not int",
                        "{\"type\":\"integer\",\"maximum\":9,\"enum\":[1,2]}", Types.StringType.get()),
                requiredCase("enum of date-times -> string, not timestamptz",
                        "{\"type\":\"string\",\"format\":\"date-time\",\"enum\":[\"2024-05-01T10:00:00Z\"]}",
                        Types.StringType.get()),
                requiredCase("enum of objects -> string, not struct", "{\"type\":\"object\",\"properties\":"
                        + "{\"a\":{\"type\":\"string\"}},\"enum\":[{\"a\":\"x\"}]}", Types.StringType.get()),
                requiredCase("enum of two types -> string", "{\"type\":[\"integer\",\"boolean\"],\"enum\":[1,true]}",
                        Types.StringType.get()),
                requiredCase("array of enums -> list<string>", "{\"type\":\"array\",\"items\":{\"type\":\"number\","
                        + "\"enum\":[0.5]}}", Types.ListType.ofOptional(2, Types.StringType.get())),
                Arguments.of("[integer, null] enum listed in required -> optional string",
                        requiredX("{\"type\":[\"integer\",\"null\"],\"enum\":[1,null]}"),
                        new Schema(optional(1, "x", Types.StringType.get()))),
                Arguments.of("enum listing null, no type, in required -> optional string (null is valid there)",
                        requiredX("{\"enum\":[\"a\",null]}"), new Schema(optional(1, "x", Types.StringType.get()))),
                requiredCase("string enum listing null -> required (its type refuses null)",
                        "{\"type\":\"string\",\"enum\":[\"a\",null]}", Types.StringType.get()),
                Arguments.of("[string, null] listed in required -> optional string",
                        requiredX("{\"type\":[\"string\",\"null\"]}"),
                        new Schema(optional(1, "x", Types.StringType.get()))),
                optionalCase("not in required -> optional", "{\"type\":\"string\"}", Types.StringType.get()),
                Arguments.of("required and optional side by side",
                        "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"boolean\"},"
                                + "\"b\":{\"type\":\"boolean\"}},\"required\":[\"b\"]}",
                        new Schema(optional(1, "a", Types.BooleanType.get()),
                                required(2, "b", Types.BooleanType.get()))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mappings")
    void maps(String name, String schema, Schema expected) throws Exception {
        Schema actual = JsonSchemaMapper.toIceberg(JSON.readTree(schema));
        assertEquals(withoutIds(expected), withoutIds(actual), name);
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of("no type", optionalX("{\"description\":\"untyped\"}"), "/properties/x"),
                Arguments.of("oneOf",
                        optionalX("{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}"), "/properties/x"),
                Arguments.of("anyOf", optionalX("{\"anyOf\":[{\"type\":\"string\"}]}"), "/properties/x"),
                Arguments.of("tuple array",
                        optionalX("{\"type\":\"array\",\"items\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}"),
                        "/properties/x/items"),
                Arguments.of("object with neither properties nor additionalProperties",
                        optionalX("{\"type\":\"object\"}"), "/properties/x"),
                Arguments.of("union of two non-null types", optionalX("{\"type\":[\"string\",\"integer\"]}"),
                        "/properties/x"),
                Arguments.of("nested pointer",
                        optionalX("{\"type\":\"object\",\"properties\":{\"a/b\":{\"type\":\"array\","
                                + "\"items\":{\"not\":{}}}}}"),
                        "/properties/x/properties/a~1b/items"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void refuses(String name, String schema, String pointer) throws Exception {
        JsonNode json = JSON.readTree(schema);
        UnsupportedSchemaException e = assertThrows(UnsupportedSchemaException.class,
                () -> JsonSchemaMapper.toIceberg(json));
        assertTrue(e.getMessage().contains(pointer + ":"), () -> name + ": " + e.getMessage());
    }

    /** SPEC F4: the mapping refuses another dialect than draft-04 and draft-07, naming the rule. */
    @Test
    void anotherDialectIsRefused() throws Exception {
        JsonNode json = JSON.readTree("{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\","
                + "\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\"}}}");
        UnsupportedSchemaException e = assertThrows(UnsupportedSchemaException.class,
                () -> JsonSchemaMapper.toIceberg(json));
        assertEquals("schema root: $schema must be draft-04 (http://json-schema.org/draft-04/schema#) or draft-07 "
                + "(http://json-schema.org/draft-07/schema#, the default): got "
                + "https://json-schema.org/draft/2020-12/schema", e.getMessage());
    }

    /** The ids are the given schema's (a table's has its own), each enum's column found by name at every level. */
    @Test
    void enumColumnsAreFoundByNameAtEveryLevel() throws Exception {
        JsonNode json = JSON.readTree("{\"type\":\"object\",\"properties\":{"
                + "\"e\":{\"type\":\"integer\",\"enum\":[1]},\"s\":{\"type\":\"string\"},"
                + "\"o\":{\"type\":\"object\",\"properties\":{\"e\":{\"enum\":[\"a\"]},\"n\":{\"type\":\"integer\"}}},"
                + "\"l\":{\"type\":\"array\",\"items\":{\"enum\":[true]}},"
                + "\"m\":{\"type\":\"object\",\"additionalProperties\":{\"enum\":[1.5]}},"
                + "\"ll\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}}}");
        AtomicInteger ids = new AtomicInteger(100);
        Schema table = TypeUtil.assignFreshIds(JsonSchemaMapper.toIceberg(json), ids::incrementAndGet);
        assertEquals(Set.of(table.findField("e").fieldId(), table.findField("o.e").fieldId(),
                table.findField("l.element").fieldId(), table.findField("m.value").fieldId()),
                JsonSchemaMapper.enumColumns(table, json));
    }

    @Test
    void keepsPropertyOrderAndNames() throws Exception {
        Schema s = JsonSchemaMapper.toIceberg(JSON.readTree(
                "{\"type\":\"object\",\"properties\":{\"z\":{\"type\":\"string\"},\"a\":{\"type\":\"string\"}}}"));
        assertEquals("z", s.columns().get(0).name());
        assertEquals("a", s.columns().get(1).name());
    }

    // Integers below 2147483648.5 include 2147483648, which no int holds: T0 asks for long.
    @Test
    void draft4ExclusiveFractionalMaximumAboveTwoPow31IsLong() throws Exception {
        Schema s = JsonSchemaMapper.toIceberg(JSON.readTree("{" + DRAFT4 + "\"type\":\"object\",\"properties\":"
                + "{\"x\":{\"type\":\"integer\",\"maximum\":2147483648.5,\"exclusiveMaximum\":true}}}"));
        assertEquals(Types.LongType.get(), s.findType("x"));
    }
}
