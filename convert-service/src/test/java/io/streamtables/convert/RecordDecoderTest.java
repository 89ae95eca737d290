package io.streamtables.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.bus.ErrorCode;
import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelDefinition;
import io.streamtables.config.DeliveryConfig;
import io.streamtables.config.TestDeliveryConfig;
import io.streamtables.schema.ChannelSchema;
import io.streamtables.schema.SchemaSource;
import io.streamtables.schema.VersionCaches;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.zip.Deflater;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;

/** Every way a record becomes a row or a DLQ code (SPEC F1–F3, D3), for JSON and GSR_JSON channels. */
class RecordDecoderTest {

    static final ObjectMapper JSON = new ObjectMapper();
    static final String SCHEMA_ARN = "arn:aws:glue:us-east-1:000000000000:schema/reg/events";
    static final String OTHER_ARN = "arn:aws:glue:us-east-1:000000000000:schema/reg/other";
    static final UUID VERSION = UUID.randomUUID();
    static final UUID FOREIGN = UUID.randomUUID();
    static final String SCHEMA = """
            {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object",
             "properties": {"id": {"type": "integer"}, "ts": {"type": "string", "format": "date-time"},
                            "n": {"type": "integer", "maximum": 10}},
             "required": ["id", "ts"]}""";

    /** The registry as the decoder sees it: one version of the channel's schema, one of another schema. */
    static final SchemaSource REGISTRY = new SchemaSource() {
        @Override
        public SchemaVersion latest(String schemaArn) {
            throw new UnsupportedOperationException();
        }

        @Override
        public SchemaVersion version(UUID id) {
            if (id.equals(VERSION)) {
                return new SchemaVersion(id, SCHEMA_ARN, tree(SCHEMA));
            }
            if (id.equals(FOREIGN)) {
                return new SchemaVersion(id, OTHER_ARN, null);
            }
            throw new SchemaNotFoundException("no " + id);
        }
    };

    static com.fasterxml.jackson.databind.JsonNode tree(String json) {
        try {
            return JSON.readTree(json);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static RecordDecoder decoder(String format) throws Exception {
        return decoder(format, REGISTRY);
    }

    /** The record limit of these tests: 1 MiB (the services default to Kinesis' 10 MiB). */
    static final int LIMIT = 1024 * 1024;

    static RecordDecoder decoder(String format, SchemaSource registry) throws Exception {
        return decoder(format, registry, SCHEMA);
    }

    static RecordDecoder decoder(String format, SchemaSource registry, String schema) throws Exception {
        return decoder(format, registry, schema, true);
    }

    /** The reference alone when {@code compile} is false. */
    static RecordDecoder decoder(String format, SchemaSource registry, String schema, boolean compile)
            throws Exception {
        return decoder(format, registry, schema, new DecodingVersions(BOUNDS, compile, LIMIT, 10));
    }

    /** A stage's caches, as the services have them by default. */
    static final VersionCaches BOUNDS = new VersionCaches(2000, 64 << 20);

    static RecordDecoder decoder(String format, SchemaSource registry, String schema, DecodingVersions versions)
            throws Exception {
        ChannelDefinition d = JSON.readValue("""
                {"ChannelName": "c", "StreamConfigurationList": [{"StreamARN": "arn:aws:kinesis:us-east-1:000000000000:stream/s",
                  "RecordConfiguration": {"RecordFormatType": "%s", "GSRSchemaARN": "%s"}}],
                 "S3TablesDestinationConfiguration": {"DataFreshnessInSeconds": 300,
                  "DeadLetterQueueS3Configuration": {"BucketARN": "arn:aws:s3:::dlq", "ExpectedBucketOwner": "000000000000"},
                  "S3TablesConfigurationList": [{"TableBucketARN": "arn:aws:s3tables:us-east-1:000000000000:bucket/b",
                   "Namespace": "ns", "TableName": "t", "CompressionType": "ZSTD",
                   "PartitionSpec": {"PartitionFields": [{"Transform": "TIME_HOUR", "SourceName": "ts"}]}}]}}
                """.formatted(format, SCHEMA_ARN), ChannelDefinition.class);
        Channel channel = Channel.of(d, config());
        return new RecordDecoder(channel, ChannelSchema.of(JSON.readTree(schema), "ts"), registry, versions);
    }

    static DeliveryConfig config() {
        return TestDeliveryConfig.forAccount("000000000000");
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The GSR wire format, written by hand from SPEC F2: 3, compression, version id, body. */
    static byte[] gsr(UUID version, byte[] body, boolean zlib) {
        byte[] payload = body;
        if (zlib) {
            Deflater deflater = new Deflater();
            deflater.setInput(body);
            deflater.finish();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            byte[] buf = new byte[256];
            while (!deflater.finished()) {
                out.write(buf, 0, deflater.deflate(buf));
            }
            payload = out.toByteArray();
        }
        return ByteBuffer.allocate(18 + payload.length).put((byte) 3).put((byte) (zlib ? 5 : 0))
                .putLong(version.getMostSignificantBits()).putLong(version.getLeastSignificantBits()).put(payload)
                .array();
    }

    static final byte[] VALID = utf8("{\"id\": 7, \"ts\": \"2026-01-02T03:04:05Z\", \"n\": 3}");

    static ConversionException failure(RecordDecoder decoder, byte[] data) {
        return assertThrows(ConversionException.class, () -> decoder.decode(data));
    }

    @Test
    void jsonRecordBecomesARow() throws Exception {
        Record row = decoder("JSON").decode(VALID);
        assertEquals(7L, row.getField("id"));
        assertEquals(3, row.getField("n"));
    }

    @Test
    void gsrRecordsDecodeUncompressedAndZlib() throws Exception {
        RecordDecoder decoder = decoder("GSR_JSON");
        assertEquals(7L, decoder.decode(gsr(VERSION, VALID, false)).getField("id"));
        assertEquals(7L, decoder.decode(gsr(VERSION, VALID, true)).getField("id"));
    }

    /**
     * A GSR_JSON record is decoded with the version it names (its fields, its rules); a version that changes
     * the partition field has its records refused with the code that says so; a JSON channel that follows the latest
     * version decodes with the one it is given.
     */
    @Test
    void eachRecordIsDecodedWithItsSchemaVersion() throws Exception {
        UUID v2 = UUID.randomUUID();
        UUID v3 = UUID.randomUUID();
        String v2Schema = SCHEMA.replace("\"maximum\": 10}", "\"maximum\": 100}, \"label\": {\"type\": \"string\"}");
        String v3Schema = SCHEMA.replace("\"ts\": {\"type\": \"string\", \"format\": \"date-time\"}",
                "\"ts\": {\"type\": \"string\"}");
        SchemaSource registry = new SchemaSource() {
            @Override
            public SchemaVersion latest(String schemaArn) {
                throw new UnsupportedOperationException();
            }

            @Override
            public SchemaVersion version(UUID id) {
                if (id.equals(v2)) {
                    return new SchemaVersion(id, SCHEMA_ARN, tree(v2Schema));
                }
                return id.equals(v3) ? new SchemaVersion(id, SCHEMA_ARN, tree(v3Schema)) : REGISTRY.version(id);
            }
        };
        byte[] second = utf8("{\"id\": 8, \"ts\": \"2026-01-02T03:04:05Z\", \"n\": 50, \"label\": \"x\"}");
        RecordDecoder gsr = decoder("GSR_JSON", registry);
        assertNull(gsr.decode(gsr(VERSION, VALID, false)).struct().field("label"));
        assertEquals(ErrorCode.SCHEMA_VALIDATION_FAILED, failure(gsr, gsr(VERSION, second, false)).code(),
                "over the first version's maximum");
        Record row = gsr.decode(gsr(v2, second, false));
        assertEquals(StringValues.of("x"), row.getField("label"));
        assertEquals(50, row.getField("n"));
        assertEquals(7L, gsr.decode(gsr(VERSION, VALID, true)).getField("id"), "and the first version still");
        ConversionException changed = failure(gsr, gsr(v3, VALID, false));
        assertEquals(ErrorCode.INCOMPATIBLE_PARTITION_CHANGE, changed.code());
        assertEquals("/ts", changed.field());

        RecordDecoder json = decoder("JSON", registry);
        assertEquals(ErrorCode.SCHEMA_VALIDATION_FAILED, failure(json, second).code());
        json.follow(ChannelSchema.of(registry.version(v2), "ts"));
        assertEquals(StringValues.of("x"), json.decode(second).getField("label"));
    }

    /**
     * Records naming more versions than the stage's cache holds, in a cycle (each version named again just after the
     * others): a stable part stays cached, so most records are decoded with a version built before. Clearing the
     * versions when the cache was full (as before) built one version per record here. Channels of one schema share
     * what was built.
     */
    @Test
    void aCycleOfMoreVersionsThanTheCacheHoldsDoesNotBuildOnePerRecord() throws Exception {
        int count = 150;
        Map<UUID, Integer> maxima = new HashMap<>();
        for (int i = 0; i < count; i++) {
            maxima.put(UUID.randomUUID(), 1000 + i);
        }
        List<UUID> ids = List.copyOf(maxima.keySet());
        SchemaSource registry = new SchemaSource() {
            @Override
            public SchemaVersion latest(String schemaArn) {
                throw new UnsupportedOperationException();
            }

            @Override
            public SchemaVersion version(UUID id) {
                return new SchemaVersion(id, SCHEMA_ARN,
                        tree(SCHEMA.replace("\"maximum\": 10}", "\"maximum\": " + maxima.get(id) + "}")));
            }
        };
        DecodingVersions versions = new DecodingVersions(new VersionCaches(100, 64 << 20), true, LIMIT, 10_000);
        RecordDecoder first = decoder("GSR_JSON", registry, SCHEMA, versions);
        RecordDecoder second = decoder("GSR_JSON", registry, SCHEMA, versions);
        int records = 0;
        for (int round = 0; round < 40; round++) {
            for (UUID id : ids) {
                int max = maxima.get(id);
                RecordDecoder decoder = round % 2 == 0 ? first : second;
                byte[] atMax = utf8("{\"id\": 1, \"ts\": \"2026-01-02T03:04:05Z\", \"n\": " + max + "}");
                assertEquals(max, decoder.decode(gsr(id, atMax, false)).getField("n"), "decoded with its version");
                records++;
            }
        }
        assertTrue(versions.built() < records / 2, versions.built() + " versions built for " + records
                + " records of " + count + " versions cycled, 100 cached");
        assertTrue(versions.built() >= count, "each version built at least once");
    }

    /**
     * The compiled fast path takes the valid records, JSON and GSR_JSON alike; a refused record goes to the reference,
     * whose message the dead letter carries, as without the fast path.
     */
    @Test
    void validRecordsTakeTheFastPathAndRefusedOnesTheReference() throws Exception {
        RecordDecoder json = decoder("JSON");
        RecordDecoder gsr = decoder("GSR_JSON");
        RecordDecoder reference = decoder("JSON", REGISTRY, SCHEMA, false);
        assertEquals(reference.decode(VALID), json.decode(VALID));
        assertEquals(reference.decode(VALID), gsr.decode(gsr(VERSION, VALID, false)));
        assertEquals(reference.decode(VALID), gsr.decode(gsr(VERSION, VALID, true)));
        byte[] over = utf8("{\"id\": 1, \"ts\": \"2026-01-02T03:04:05Z\", \"n\": 11}");
        assertEquals(failure(reference, over).getMessage(), failure(json, over).getMessage());
        assertEquals("/n fails rule 'maximum'", failure(json, over).getMessage());
        assertEquals(List.of(1L, 2L), List.of(json.compiledRecords(), json.referenceRecords()));
        assertEquals(List.of(2L, 0L), List.of(gsr.compiledRecords(), gsr.referenceRecords()));
        assertEquals(List.of(0L, 4L), List.of(reference.compiledRecords(), reference.referenceRecords()));
    }

    /** A schema with a keyword the compiler does not implement is decoded by the reference, with the same rows. */
    @Test
    void aSchemaWithAnUncompiledKeywordKeepsTheReference() throws Exception {
        String schema = SCHEMA.replace("\"required\"", "\"minProperties\": 3, \"required\"");
        RecordDecoder json = decoder("JSON", REGISTRY, schema);
        assertEquals("minProperties", json.uncompiledKeyword());
        assertEquals(7L, json.decode(VALID).getField("id"));
        assertEquals("record fails rule 'minProperties'",
                failure(json, utf8("{\"id\": 1, \"ts\": \"2026-01-02T03:04:05Z\"}")).getMessage());
        assertEquals(List.of(0L, 2L), List.of(json.compiledRecords(), json.referenceRecords()));
        assertEquals(null, decoder("JSON").uncompiledKeyword());
    }

    @Test
    void eachFailureHasItsCode() throws Exception {
        RecordDecoder json = decoder("JSON");
        RecordDecoder gsr = decoder("GSR_JSON");
        List<Object[]> cases = List.of(
                new Object[] {json, utf8("{\"id\": 1, \"ts\": "), ErrorCode.DESERIALIZATION_ERROR, null},
                new Object[] {json, new byte[] {'{', '"', (byte) 0xC3, (byte) 0x28, '"', ':', '1', '}'},
                    ErrorCode.DESERIALIZATION_ERROR, null},
                new Object[] {json, gsr(VERSION, VALID, false), ErrorCode.DESERIALIZATION_ERROR, null},
                // overlong and out-of-range UTF-8, which a lenient decoder would turn into other text
                new Object[] {json, new byte[] {'{', '"', 'i', 'd', '"', ':', '1', ',', '"', 't', 's', '"', ':', '"',
                    (byte) 0xC0, (byte) 0xAF, '"', '}'}, ErrorCode.DESERIALIZATION_ERROR, null},
                new Object[] {json, new byte[] {'"', (byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80, '"'},
                    ErrorCode.DESERIALIZATION_ERROR, null},
                new Object[] {json, utf8("{\"id\": 1}"), ErrorCode.MISSING_PARTITION_VALUE, "/ts"},
                new Object[] {json, utf8("{\"id\": 1, \"ts\": null}"), ErrorCode.MISSING_PARTITION_VALUE, "/ts"},
                new Object[] {json, utf8("{\"id\": \"x\", \"ts\": \"2026-01-02T03:04:05Z\"}"),
                    ErrorCode.SCHEMA_VALIDATION_FAILED, "/id"},
                new Object[] {json, utf8("{\"id\": 1, \"ts\": \"2026-01-02T03:04:05Z\", \"n\": 11}"),
                    ErrorCode.SCHEMA_VALIDATION_FAILED, "/n"},
                new Object[] {json, utf8("{\"id\": 1, \"ts\": \"yesterday\"}"), ErrorCode.SCHEMA_VALIDATION_FAILED, "/ts"},
                new Object[] {json, utf8("{\"id\": 123456789012345678901234567890, \"ts\": \"2026-01-02T03:04:05Z\"}"),
                    ErrorCode.TYPE_CONVERSION_FAILED, "/id"},
                new Object[] {json, new byte[LIMIT + 1], ErrorCode.RECORD_TOO_LARGE, null},
                new Object[] {gsr, VALID, ErrorCode.INVALID_SCHEMA, null},
                new Object[] {gsr, gsr(FOREIGN, VALID, false), ErrorCode.INVALID_SCHEMA, null},
                new Object[] {gsr, gsr(UUID.randomUUID(), VALID, false), ErrorCode.INVALID_SCHEMA, null},
                new Object[] {gsr, gsr(VERSION, utf8("{\"id\": 1}"), true), ErrorCode.MISSING_PARTITION_VALUE, "/ts"});
        for (Object[] c : cases) {
            ConversionException e = failure((RecordDecoder) c[0], (byte[]) c[1]);
            assertEquals(c[2], e.code(), e.getMessage());
            assertEquals(c[3], e.field(), e.getMessage());
        }
    }

    /**
     * Records are parsed from their bytes, but a JSON error is still placed by line and character, as the text
     * parser counts them (the figures are what the decoder reported when it decoded every record to a String).
     */
    @Test
    void jsonErrorsArePlacedByCharacter() throws Exception {
        RecordDecoder json = decoder("JSON");
        Map<byte[], String> cases = new java.util.LinkedHashMap<>();
        cases.put(utf8("{\"a\": \"\u00e9\u20ac\ud83d\ude00\", x}"), "(line 1, column 15)");
        cases.put(utf8("\n\n  {\"a\": \"\u00e9\u00e9\u00e9\", \"b\": tru}"), "(line 3, column 21)");
        cases.put(utf8("\ufeff{\"id\": 1}"), "(line 1, column 1)"); // a byte order mark is not JSON
        cases.put(new byte[] {0, '{', 0, '}'}, "(line 1, column 2)"); // nor UTF-16 that happens to be valid UTF-8
        cases.put(new byte[] {'{', '}', 0, 0}, "(line 1, column 4)");
        cases.put(utf8("  "), "(line 1, column 0)");
        cases.forEach((data, at) -> {
            ConversionException e = failure(json, data);
            assertEquals(ErrorCode.DESERIALIZATION_ERROR, e.code());
            assertEquals("record is not valid JSON " + at, e.getMessage());
        });
    }

    @Test
    void damagedZlibBodiesAreDeadLettered() throws Exception {
        RecordDecoder gsr = decoder("GSR_JSON");
        byte[] whole = gsr(VERSION, VALID, true);
        // truncated: the serde's own inflation loop would wait for the missing bytes forever
        ConversionException truncated = failure(gsr, java.util.Arrays.copyOf(whole, whole.length - 4));
        assertEquals("record has a Glue Schema Registry header but its body cannot be decompressed", truncated.getMessage());
        byte[] corrupt = whole.clone();
        corrupt[18] ^= 0x55;
        assertEquals(ErrorCode.DESERIALIZATION_ERROR, failure(gsr, corrupt).code());
        // an empty body inflates to no text at all
        assertEquals("record is not valid JSON (line 1, column 0)", failure(gsr, gsr(VERSION, new byte[0], true)).getMessage());
        // a body larger than the first guess of its size
        byte[] big = utf8("{\"id\": 7, \"ts\": \"2026-01-02T03:04:05Z\", \"n\": 3" + " ".repeat(20_000) + "}");
        assertEquals(7L, gsr.decode(gsr(VERSION, big, true)).getField("id"));
    }

    /**
     * A number no column holds is refused before validation, in the time of its token. Validated first,
     * {@code multipleOf} would divide by it: 1e99999 takes seconds, 1e99999999 hours.
     */
    @Test
    void hugeNumbersAreRefusedBeforeValidation() throws Exception {
        RecordDecoder decoder = decoder("JSON", REGISTRY, """
                {"type": "object", "required": ["ts"], "properties": {"ts": {"type": "string", "format": "date-time"},
                 "price": {"type": "number", "multipleOf": 0.01},
                 "n": {"type": "integer", "multipleOf": 5},
                 "tags": {"type": "object", "additionalProperties": {"type": "number", "multipleOf": 0.5}}}}""");
        Map<String, String> cases = Map.of(
                "\"price\": 1e99999999", "/price",
                "\"price\": -1.5E+99999999", "/price",
                "\"price\": 1e-99999999", "/price",
                "\"n\": 1" + "0".repeat(999), "/n",
                "\"tags\": {\"secret-key\": 2e99999999}", "/tags/*");
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> cases.forEach((member, pointer) -> {
            ConversionException e = failure(decoder, utf8("{\"ts\": \"2026-01-02T03:04:05Z\", " + member + "}"));
            assertEquals(ErrorCode.TYPE_CONVERSION_FAILED, e.code(), member + ": " + e.getMessage());
            assertEquals(pointer, e.field(), member);
            assertEquals(pointer + " is out of the range of its column (a decimal exponent beyond 400)", e.getMessage());
        }));
        // a number under a name the schema does not know has no column: left alone, as the converter leaves it
        Record row = decoder.decode(utf8("{\"ts\": \"2026-01-02T03:04:05Z\", \"price\": 1.25, \"x\": 1e99999999}"));
        assertEquals(new java.math.BigDecimal("1.25"), row.getField("price"));
    }

    /** The parser's limits, each a dead letter that says which. */
    @Test
    void parserLimitsAreDeadLettered() throws Exception {
        RecordDecoder json = decoder("JSON");
        Map<String, String> cases = Map.of(
                "{\"id\": " + "1".repeat(100_000) + ", \"ts\": \"2026-01-02T03:04:05Z\"}",
                "record is over a parser limit: a number of more than 1000 characters (docs/OPERATING.md \"Limits\")",
                "[".repeat(10_000) + "]".repeat(10_000),
                "record is over a parser limit: nesting deeper than 1000 (docs/OPERATING.md \"Limits\")");
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> cases.forEach((doc, message) -> {
            ConversionException e = failure(json, utf8(doc));
            assertEquals(ErrorCode.DESERIALIZATION_ERROR, e.code());
            assertEquals(message, e.getMessage());
        }));
    }

    /**
     * A string with an unpaired surrogate would become a '?' in Parquet; a member name given twice would be read as
     * its last value (another reader may take the first). Both are dead letters, naming neither value nor name.
     */
    @Test
    void loneSurrogatesAndRepeatedNamesAreDeadLettered() throws Exception {
        RecordDecoder decoder = decoder("JSON", REGISTRY, """
                {"type": "object", "required": ["ts"], "properties": {"ts": {"type": "string", "format": "date-time"},
                 "name": {"type": "string"},
                 "labels": {"type": "object", "additionalProperties": {"type": "string"}}}}""");
        Map<String, String> cases = Map.of(
                "\"name\": \"a\\ud800b\"", "/name",
                "\"name\": \"\\udc00\"", "/name",
                "\"labels\": {\"secret-key\": \"x\\ud83d\"}", "/labels/*");
        cases.forEach((member, pointer) -> {
            ConversionException e = failure(decoder, utf8("{\"ts\": \"2026-01-02T03:04:05Z\", " + member + "}"));
            assertEquals(ErrorCode.DESERIALIZATION_ERROR, e.code(), member);
            assertEquals(pointer, e.field(), member);
            assertEquals(pointer + " holds an unpaired UTF-16 surrogate (an escape from \\uD800 to \\uDFFF alone)",
                    e.getMessage());
        });
        // a map's key has no UTF-8 either (keys are UTF-8 in the row); the key is not named
        ConversionException key = failure(decoder, utf8("{\"ts\": \"2026-01-02T03:04:05Z\", \"labels\": {\"a\\ud800\": \"x\"}}"));
        assertEquals(ErrorCode.DESERIALIZATION_ERROR, key.code());
        assertEquals("/labels", key.field());
        assertEquals("a key of map /labels holds an unpaired UTF-16 surrogate (an escape from \\uD800 to \\uDFFF alone)",
                key.getMessage());
        // a pair is a character; an undeclared member has no column and is left alone
        assertEquals(StringValues.of("\ud83d\ude00"), decoder.decode(utf8("{\"ts\": \"2026-01-02T03:04:05Z\", \"name\": \"\\ud83d\\ude00\","
                + " \"other\": \"\\ud800\"}")).getField("name"));

        ConversionException twice = failure(decoder, utf8("{\"ts\": \"2026-01-02T03:04:05Z\", \"name\": \"SECRET\", "
                + "\"name\": \"b\"}"));
        assertEquals(ErrorCode.DESERIALIZATION_ERROR, twice.code());
        assertEquals("record has a member name twice in one object (line 1, column 56)", twice.getMessage());
    }

    /** A zlib body inflates to the record limit at most; 100 MiB of spaces compress to 100 KB. */
    @Test
    void aDecompressionBombStopsAtTheLimit() throws Exception {
        byte[] bomb = new byte[100 * 1024 * 1024];
        java.util.Arrays.fill(bomb, (byte) ' ');
        byte[] record = gsr(VERSION, bomb, true);
        bomb = null;
        assertTrue(record.length < 200_000, "compressed to " + record.length);
        ConversionException e = failure(decoder("GSR_JSON"), record);
        assertEquals(ErrorCode.DESERIALIZATION_ERROR, e.code());
        assertEquals("record has a Glue Schema Registry body that inflates past the record limit of " + LIMIT
                + " bytes (delivery.records.max-bytes)", e.getMessage());
    }

    /**
     * Schema patterns run in linear time. On the JDK's backtracking engine, {@code ^(.*a){12}$} against
     * 40 {@code a}s and a {@code b} takes minutes (30 and a {@code b}: 7 s); {@code ^(a+)+$}, the textbook example,
     * the JDK 17 engine catches itself.
     */
    @Test
    void catastrophicPatternsAreValidatedInLinearTime() throws Exception {
        RecordDecoder decoder = decoder("JSON", REGISTRY, """
                {"type": "object", "required": ["ts"], "properties": {"ts": {"type": "string", "format": "date-time"},
                 "code": {"type": "string", "pattern": "^(.*a){12}$"},
                 "nested": {"type": "string", "pattern": "^(a+)+$"}}}""");
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            for (String field : List.of("code", "nested")) {
                ConversionException e = failure(decoder, utf8("{\"ts\": \"2026-01-02T03:04:05Z\", \"" + field
                        + "\": \"" + "a".repeat(40) + "b\"}"));
                assertEquals(ErrorCode.SCHEMA_VALIDATION_FAILED, e.code());
                assertEquals("/" + field, e.field());
            }
        });
        assertEquals(StringValues.of("a".repeat(12)), decoder.decode(utf8("{\"ts\": \"2026-01-02T03:04:05Z\", \"code\": \""
                + "a".repeat(12) + "\"}")).getField("code"));
    }

    /**
     * A producer naming a new random version id in every record: the registry is asked for at most the channel's
     * misses a second, the other records are dead letters without a lookup, and a version the stage knows still
     * decodes. Before, each record cost a lookup while the stage's other channels' chunks waited.
     */
    @Test
    void forgedVersionIdsCostAtMostTheChannelsMissesASecond() throws Exception {
        java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        SchemaSource counting = new SchemaSource() {
            @Override
            public SchemaVersion latest(String schemaArn) {
                throw new UnsupportedOperationException();
            }

            @Override
            public SchemaVersion version(UUID id) {
                asked.incrementAndGet();
                return REGISTRY.version(id);
            }
        };
        RecordDecoder decoder = decoder("GSR_JSON", counting);
        assertEquals(7L, decoder.decode(gsr(VERSION, VALID, false)).getField("id"));
        int notAsked = 0;
        for (int i = 0; i < 200; i++) {
            ConversionException e = failure(decoder, gsr(UUID.randomUUID(), VALID, false));
            assertEquals(ErrorCode.INVALID_SCHEMA, e.code());
            notAsked += e.getMessage().contains("delivery.schema-registry.misses-per-channel (10)") ? 1 : 0;
        }
        // 10 a second: two if the loop crossed a second, the known version once
        assertTrue(asked.get() <= 1 + 20, asked + " lookups for 200 forged ids");
        assertEquals(200, notAsked + asked.get() - 1);
        assertEquals(7L, decoder.decode(gsr(VERSION, VALID, false)).getField("id"), "a known version decodes");
        assertTrue(decoder("GSR_JSON", counting).decode(gsr(VERSION, VALID, true)) != null,
                "another channel's misses are its own");
    }

    /**
     * A version of another schema names that schema only when it is the channel's own account's: before, a tenant
     * naming another account's version id learnt that account's schema ARN from its dead letter.
     */
    @Test
    void aVersionOfAnotherAccountsSchemaIsNotNamed() throws Exception {
        UUID theirs = UUID.randomUUID();
        String theirArn = "arn:aws:glue:us-east-1:222222222222:schema/private/payroll";
        SchemaSource registry = new SchemaSource() {
            @Override
            public SchemaVersion latest(String schemaArn) {
                throw new UnsupportedOperationException();
            }

            @Override
            public SchemaVersion version(UUID id) {
                return id.equals(theirs) ? new SchemaVersion(id, theirArn, tree(SCHEMA)) : REGISTRY.version(id);
            }
        };
        RecordDecoder decoder = decoder("GSR_JSON", registry);
        String message = failure(decoder, gsr(theirs, VALID, false)).getMessage();
        assertTrue(message.contains("another account's schema") && !message.contains("222222222222")
                && !message.contains("payroll"), message);
        assertTrue(failure(decoder, gsr(FOREIGN, VALID, false)).getMessage().contains(OTHER_ARN), "its own account's");
    }

    @Test
    void messagesNeverQuoteThePayload() throws Exception {
        RecordDecoder json = decoder("JSON");
        for (String doc : List.of("{\"id\": \"SECRET\", \"ts\": \"2026-01-02T03:04:05Z\"}",
                "{\"id\": 1, \"ts\": \"SECRET\"}", "{\"id\": 1, \"ts\": SECRET}", "SECRET")) {
            ConversionException e = failure(json, utf8(doc));
            assertFalse(e.getMessage().contains("SECRET"), e.getMessage());
        }
    }

    @Test
    void anUnreachableRegistryIsNotADeadLetter() throws Exception {
        SchemaSource down = new SchemaSource() {
            public SchemaVersion latest(String arn) {
                throw new RegistryUnavailableException("down", null);
            }

            public SchemaVersion version(UUID id) {
                throw new RegistryUnavailableException("down", null);
            }
        };
        RecordDecoder offline = decoder("GSR_JSON", down);
        assertThrows(SchemaSource.RegistryUnavailableException.class, () -> offline.decode(gsr(VERSION, VALID, false)));
    }
}
