package io.streamtables.commit;

import static io.streamtables.commit.CommitFixture.MANIFESTS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.bus.CommitToken;
import io.streamtables.bus.RowChunk;
import io.streamtables.convert.RowConverter;
import io.streamtables.schema.JsonSchemaMapper;
import io.streamtables.watermarks.ShardWatermarks;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * SPEC table T end to end, one case per row and rule: a JSON Schema field → its Iceberg column type, and a
 * JSON value → the value read back from a committed table.
 */
class TypeRoundTripTest {

    static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    static final AtomicInteger TABLES = new AtomicInteger();

    @TempDir
    static Path dir;
    static Catalog catalog;

    @BeforeAll
    static void catalog() {
        catalog = CommitFixture.catalog(dir);
    }

    static Arguments row(String name, String fragment, String value, Type type, Object expected) {
        return Arguments.of(name, fragment, value, type, expected);
    }

    static Stream<Arguments> tableT() {
        return Stream.of(
                row("string", "{\"type\": \"string\"}", "\"abc\"", Types.StringType.get(), "abc"),
                row("date-time with offset", "{\"type\": \"string\", \"format\": \"date-time\"}",
                        "\"2024-05-01T10:00:00.123456+05:30\"", Types.TimestampType.withZone(),
                        OffsetDateTime.parse("2024-05-01T04:30:00.123456Z")),
                row("date-time -00:00 with nanoseconds", "{\"type\": \"string\", \"format\": \"date-time\"}",
                        "\"2024-05-01T10:00:00.123456000-00:00\"", Types.TimestampType.withZone(),
                        OffsetDateTime.parse("2024-05-01T10:00:00.123456Z")),
                row("date", "{\"type\": \"string\", \"format\": \"date\"}", "\"2024-02-29\"", Types.DateType.get(),
                        LocalDate.of(2024, 2, 29)),
                row("time", "{\"type\": \"string\", \"format\": \"time\"}", "\"10:15:30.5Z\"", Types.TimeType.get(),
                        LocalTime.of(10, 15, 30, 500_000_000)),
                row("uuid", "{\"type\": \"string\", \"format\": \"uuid\"}", "\"0f8fad5b-d9cb-469f-a165-70867728950e\"",
                        Types.UUIDType.get(), UUID.fromString("0f8fad5b-d9cb-469f-a165-70867728950e")),
                row("base64", "{\"type\": \"string\", \"encoding\": \"base64\"}", "\"AAEC/w==\"", Types.BinaryType.get(),
                        List.of((byte) 0, (byte) 1, (byte) 2, (byte) -1)),
                row("byte", "{\"type\": \"string\", \"encoding\": \"byte\"}", "\"AQ==\"", Types.BinaryType.get(),
                        List.of((byte) 1)),
                row("int by maximum", "{\"type\": \"integer\", \"maximum\": 2147483647}", "2147483647",
                        Types.IntegerType.get(), Integer.MAX_VALUE),
                row("int by draft-07 exclusiveMaximum", "{\"type\": \"integer\", \"exclusiveMaximum\": 2147483648}",
                        "-2147483648", Types.IntegerType.get(), Integer.MIN_VALUE),
                row("long", "{\"type\": \"integer\"}", "9223372036854775807", Types.LongType.get(), Long.MAX_VALUE),
                row("long by maximum 2^31", "{\"type\": \"integer\", \"maximum\": 2147483648}", "2147483648",
                        Types.LongType.get(), 2147483648L),
                row("decimal 0.01", "{\"type\": \"number\", \"multipleOf\": 0.01}", "12.5", Types.DecimalType.of(38, 2),
                        new BigDecimal("12.50")),
                row("decimal 0.5", "{\"type\": \"number\", \"multipleOf\": 0.5}", "2.5", Types.DecimalType.of(38, 1),
                        new BigDecimal("2.5")),
                row("decimal 1", "{\"type\": \"number\", \"multipleOf\": 1}", "7", Types.DecimalType.of(38, 0),
                        new BigDecimal("7")),
                row("double", "{\"type\": \"number\"}", "1.25e3", Types.DoubleType.get(), 1250.0),
                row("boolean", "{\"type\": \"boolean\"}", "true", Types.BooleanType.get(), true),
                row("struct", "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"string\"}, "
                        + "\"b\": {\"type\": \"integer\", \"maximum\": 10}}, \"required\": [\"a\"]}",
                        "{\"a\": \"x\", \"b\": 3}", Types.StructType.of(
                                Types.NestedField.required(0, "a", Types.StringType.get()),
                                Types.NestedField.optional(0, "b", Types.IntegerType.get())),
                        Map.of("a", "x", "b", 3)),
                row("map", "{\"type\": \"object\", \"additionalProperties\": {\"type\": \"integer\"}}",
                        "{\"k\": 1, \"j\": 2}", Types.MapType.ofOptional(0, 0, Types.StringType.get(), Types.LongType.get()),
                        Map.of("k", 1L, "j", 2L)),
                row("list", "{\"type\": \"array\", \"items\": {\"type\": \"string\"}}", "[\"a\", \"b\"]",
                        Types.ListType.ofOptional(0, Types.StringType.get()), List.of("a", "b")),
                row("list of structs", "{\"type\": \"array\", \"items\": {\"type\": \"object\", \"properties\": "
                        + "{\"n\": {\"type\": \"boolean\"}}}}", "[{\"n\": true}, {}]",
                        Types.ListType.ofOptional(0, Types.StructType.of(
                                Types.NestedField.optional(0, "n", Types.BooleanType.get()))),
                        List.of(mapOf("n", true), mapOf("n", null))),
                row("list of lists", "{\"type\": \"array\", \"items\": {\"type\": \"array\", \"items\": {\"type\": \"integer\"}}}",
                        "[[1], [2, 3]]", Types.ListType.ofOptional(0, Types.ListType.ofOptional(0, Types.LongType.get())),
                        List.of(List.of(1L), List.of(2L, 3L))),
                row("enum", "{\"enum\": [\"a\", \"b\"]}", "\"b\"", Types.StringType.get(), "b"),
                row("enum of integers", "{\"type\": \"integer\", \"enum\": [1, 2]}", "2", Types.StringType.get(), "2"),
                row("enum of numbers, one text per value", "{\"enum\": [1.5, 100]}", "1e2", Types.StringType.get(),
                        "100"),
                row("enum of booleans", "{\"type\": \"boolean\", \"enum\": [true]}", "true",
                        Types.StringType.get(), "true"),
                row("nullable enum", "{\"type\": [\"integer\", \"null\"], \"enum\": [1, null]}", "null",
                        Types.StringType.get(), null),
                row("nullable union", "{\"type\": [\"string\", \"null\"]}", "null", Types.StringType.get(), null));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("tableT")
    void mapsAndReadsBack(String name, String fragment, String value, Type type, Object expected) throws Exception {
        boolean nullable = fragment.contains("\"null\"");
        JsonNode jsonSchema = JSON.readTree("{\"type\": \"object\", \"properties\": {"
                + "\"id\": {\"type\": \"integer\"}, \"ts\": {\"type\": \"string\", \"format\": \"date-time\"}, "
                + "\"x\": " + fragment + "}, \"required\": [\"id\", \"ts\", \"x\"]}");
        Schema schema = JsonSchemaMapper.toIceberg(jsonSchema);
        Types.NestedField column = schema.findField("x");
        assertEquals(withoutIds(type), withoutIds(column.type()), "column type of " + fragment);
        assertEquals(nullable, column.isOptional(), "a field listed in required is non-null unless it admits null");

        String tableName = "t" + TABLES.incrementAndGet();
        Table table = TableOpener.open(catalog, false, CommitFixture.channel("c-" + tableName, tableName), schema, null);
        Record row = new RowConverter(table.schema(), jsonSchema).convert(JSON.readTree(
                "{\"id\": 1, \"ts\": \"2024-05-01T10:00:00Z\", \"x\": " + value + "}"));
        ChannelBuffer buffer = new ChannelBuffer(CommitFixture.channel("c-" + tableName, tableName), table, Map.of());
        buffer.append(new RowChunk(new CommitToken("arn", CommitFixture.STREAM_ARN, "shard-1", null, "1", "1"),
                List.of(new RowChunk.Row("1", 0, row)), List.of()));
        assertTrue(ShardWatermarks.commit(table, buffer.cut(), MANIFESTS));

        List<Object> read = new ArrayList<>();
        try (CloseableIterable<Record> rows = IcebergGenerics.read(
                catalog.loadTable(TableIdentifier.of("sales", tableName))).build()) {
            rows.forEach(r -> read.add(plain(r.getField("x"))));
        }
        assertEquals(1, read.size());
        Object got = read.get(0);
        if (expected instanceof BigDecimal d) {
            assertEquals(d, got, "decimal value and scale");
        } else {
            assertEquals(expected, got);
        }
    }

    /** Field ids are the catalog's business; the shape is what the mapping decides. */
    static String withoutIds(Type type) {
        return type.toString().replaceAll("\\d+: ", "");
    }

    /** Iceberg's generic values in plain Java shapes: records as maps, bytes as lists. */
    static Object plain(Object v) {
        if (v instanceof Record r) {
            Map<String, Object> m = new LinkedHashMap<>();
            r.struct().fields().forEach(f -> m.put(f.name(), plain(r.getField(f.name()))));
            return m;
        }
        if (v instanceof ByteBuffer b) {
            List<Byte> bytes = new ArrayList<>();
            ByteBuffer copy = b.duplicate();
            while (copy.hasRemaining()) {
                bytes.add(copy.get());
            }
            return bytes;
        }
        if (v instanceof List<?> l) {
            return l.stream().map(TypeRoundTripTest::plain).toList();
        }
        if (v instanceof Map<?, ?> m) {
            Map<Object, Object> out = new LinkedHashMap<>();
            m.forEach((k, val) -> out.put(k, plain(val)));
            return out;
        }
        return v;
    }

    static Map<String, Object> mapOf(String k, Object v) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put(k, v);
        return m;
    }
}
