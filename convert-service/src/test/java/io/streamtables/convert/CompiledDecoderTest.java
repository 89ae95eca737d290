package io.streamtables.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.schema.ChannelSchema;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The compiler keyword by keyword. Each case decodes one document with the fast path and the reference: the fast path
 * takes what it is sure of ("taken") and leaves the rest to the reference ("left"), which must refuse it unless noted.
 */
class CompiledDecoderTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TS = "\"ts\": {\"type\": \"string\", \"format\": \"date-time\"}";

    private static String schema(String dialect, String field) {
        return "{" + dialect + "\"type\": \"object\", \"properties\": {" + TS + ", \"v\": " + field
                + "}, \"required\": [\"ts\"]}";
    }

    private static CompiledDecoder.Compilation compile(String schema) throws Exception {
        return CompiledDecoder.compile(ChannelSchema.of(JSON.readTree(schema), "ts"), RecordDecoderTest.LIMIT);
    }

    /** Decodes {"ts": ..., "v": value} both ways; returns whether the fast path took it, checking it agrees. */
    private static boolean taken(String schema, String value) throws Exception {
        byte[] doc = ("{\"ts\": \"2024-05-06T07:08:09Z\", \"v\": " + value + "}").getBytes(StandardCharsets.UTF_8);
        CompiledDecoder decoder = compile(schema).decoder();
        assertNotNull(decoder, "compiled");
        Record fast = decoder.decode(doc, 0, doc.length);
        RecordDecoder reference = RecordDecoderTest.decoder("JSON", RecordDecoderTest.REGISTRY, schema, false);
        if (fast != null) {
            assertEquals(reference.decode(doc), fast);
            return true;
        }
        return false;
    }

    @ParameterizedTest(name = "{0} {1} -> {2}")
    @CsvSource(delimiter = '|', value = {
        // type, with integers as floats from draft 6 on
        "{\"type\": \"integer\"}                                 | 5           | true",
        "{\"type\": \"integer\"}                                 | 5.0         | true",
        "{\"type\": \"integer\"}                                 | 5.5         | false",
        "{\"type\": \"integer\"}                                 | \"5\"       | false",
        "{\"type\": [\"integer\", \"null\"]}                     | null        | true",
        "{\"type\": \"integer\"}                                 | null        | false",
        "{\"type\": \"number\"}                                  | 5           | true",
        "{\"type\": \"number\"}                                  | -0.0        | true",
        "{\"type\": \"number\"}                                  | 1e-400      | false",
        "{\"type\": \"boolean\"}                                 | true        | true",
        "{\"type\": \"boolean\"}                                 | 0           | false",
        // integer bounds: int and long columns, exclusive forms
        "{\"type\": \"integer\", \"maximum\": 10}                | 10          | true",
        "{\"type\": \"integer\", \"maximum\": 10}                | 11          | false",
        "{\"type\": \"integer\", \"exclusiveMaximum\": 10}       | 10          | false",
        "{\"type\": \"integer\", \"exclusiveMinimum\": 0}        | 1           | true",
        "{\"type\": \"integer\", \"minimum\": 0}                 | -1          | false",
        "{\"type\": \"integer\", \"minimum\": 0}                 | 1e19        | false",
        "{\"type\": \"integer\", \"maximum\": 2147483647}        | 2147483648  | false",
        "{\"type\": \"integer\"}                                 | 9223372036854775807 | true",
        "{\"type\": \"integer\"}                                 | 9223372036854775808 | false",
        // numbers: bounds exact, multipleOf as the validator divides
        "{\"type\": \"number\", \"minimum\": 0.1}                | 0.1         | true",
        "{\"type\": \"number\", \"minimum\": 0.1}                | 0.09999999999999999999 | false",
        "{\"type\": \"number\", \"maximum\": 1e30}               | 1e30        | true",
        "{\"type\": \"number\", \"multipleOf\": 0.01}            | 1.07        | true",
        "{\"type\": \"number\", \"multipleOf\": 0.01}            | 1.075       | false",
        "{\"type\": \"number\", \"multipleOf\": 0.5}             | 3           | true",
        "{\"type\": \"integer\", \"multipleOf\": 3}              | 9           | true",
        "{\"type\": \"integer\", \"multipleOf\": 3}              | 10          | false",
        // strings: lengths in code points, pattern as find, formats, base64
        "{\"type\": \"string\", \"maxLength\": 1}                | \"\\uD83D\\uDE00\" | true",
        "{\"type\": \"string\", \"maxLength\": 1}                | \"ab\"      | false",
        "{\"type\": \"string\", \"minLength\": 2}                | \"a\"       | false",
        "{\"type\": \"string\", \"pattern\": \"b\"}              | \"abc\"     | true",
        "{\"type\": \"string\", \"pattern\": \"^b\"}             | \"abc\"     | false",
        "{\"type\": \"string\", \"format\": \"uuid\"}            | \"123e4567-e89b-12d3-a456-426614174000\" | true",
        "{\"type\": \"string\", \"format\": \"uuid\"}            | \"1-1-1-1-1\" | false",
        "{\"type\": \"string\", \"format\": \"date\"}            | \"2024-02-29\" | true",
        "{\"type\": \"string\", \"format\": \"date\"}            | \"2023-02-29\" | false",
        "{\"type\": \"string\", \"format\": \"time\"}            | \"10:11:12.5+02:00\" | true",
        "{\"type\": \"string\", \"format\": \"time\"}            | \"10:11:12\" | false",
        "{\"type\": \"string\", \"format\": \"date-time\"}       | \"2024-05-06 07:08:09.123456789z\" | true",
        "{\"type\": \"string\", \"contentEncoding\": \"base64\"} | \"QUJD\"    | true",
        "{\"type\": \"string\", \"encoding\": \"base64\"}        | \"QU!J\"    | false",
        "{\"type\": \"string\"}                                  | \"\\uD800\" | false",
        // enum and const: strings by equality, numbers by value
        "{\"enum\": [\"a\", \"b\"]}                              | \"b\"       | true",
        "{\"enum\": [\"a\", \"b\"]}                              | \"c\"       | false",
        "{\"type\": \"string\", \"const\": \"a\"}                | \"a\"       | true",
        "{\"type\": \"integer\", \"enum\": [1, 2]}               | 2.0         | true",
        "{\"type\": \"integer\", \"enum\": [1, 2]}               | 3           | false",
        // an enum's column is a string: a number or a boolean in it as JSON text
        "{\"type\": \"integer\", \"enum\": [1, 2]}               | 1e0         | true",
        "{\"enum\": [true, 1.5]}                               | 1.50        | true",
        "{\"enum\": [true, 1.5]}                               | true        | true",
        "{\"enum\": [12345678901234567890]}                    | 12345678901234567890 | true",
        // arrays and maps
        "{\"type\": \"array\", \"items\": {\"type\": \"integer\"}, \"maxItems\": 2} | [1, null] | false",
        "{\"type\": \"array\", \"items\": {\"type\": [\"integer\", \"null\"]}, \"maxItems\": 2} | [1, null] | true",
        "{\"type\": \"array\", \"items\": {\"type\": \"integer\"}, \"minItems\": 1} | [] | false",
        "{\"type\": \"object\", \"additionalProperties\": {\"type\": \"string\"}} | {\"k\": \"x\", \"\\u00e9\": \"y\"} | true",
        "{\"type\": \"object\", \"additionalProperties\": {\"type\": \"string\"}} | {\"k\": 1} | false",
        // structs: required, additionalProperties false, true and a schema
        "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"integer\"}}, \"required\": [\"a\"]} | {} | false",
        "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"integer\"}}, \"additionalProperties\": false} | {\"a\": 1, \"b\": 2} | false",
        "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"integer\"}}} | {\"a\": 1, \"b\": [1e999999]} | true",
    })
    void keyword(String field, String value, boolean taken) throws Exception {
        assertEquals(taken, taken(schema("", field), value));
    }

    @Test
    void draft4() throws Exception {
        String d4 = "\"$schema\": \"http://json-schema.org/draft-04/schema#\", ";
        // a float is no integer in draft 4; exclusiveMaximum is a flag of maximum; const is no keyword
        assertEquals(false, taken(schema(d4, "{\"type\": \"integer\"}"), "5.0"));
        assertEquals(false, taken(schema(d4, "{\"type\": \"integer\", \"maximum\": 10, \"exclusiveMaximum\": true}"), "10"));
        assertEquals(true, taken(schema(d4, "{\"type\": \"integer\", \"maximum\": 10, \"exclusiveMaximum\": false}"), "10"));
        assertEquals(true, taken(schema(d4, "{\"type\": \"string\", \"const\": \"a\"}"), "\"b\""));
    }

    @Test
    void referencesWithinTheDocument() throws Exception {
        String schema = "{\"type\": \"object\", \"properties\": {" + TS + "}, \"required\": [\"ts\"],"
                + " \"additionalProperties\": {\"$ref\": \"#/definitions/node\"},"
                + " \"definitions\": {\"node\": {\"type\": \"object\", \"properties\": {\"v\": {\"type\": \"integer\"},"
                + " \"next\": {\"$ref\": \"#/definitions/node\"}}, \"required\": [\"v\"]}}}";
        CompiledDecoder decoder = compile(schema).decoder();
        assertNotNull(decoder);
        byte[] ok = "{\"ts\": \"2024-05-06T07:08:09Z\", \"x\": {\"v\": 1, \"next\": {\"v\": 2}}}".getBytes(StandardCharsets.UTF_8);
        byte[] bad = "{\"ts\": \"2024-05-06T07:08:09Z\", \"x\": {\"v\": 1, \"next\": {\"v\": \"2\"}}}".getBytes(StandardCharsets.UTF_8);
        assertEquals(RecordDecoderTest.decoder("JSON", RecordDecoderTest.REGISTRY, schema, false).decode(ok), decoder.decode(ok, 0, ok.length));
        assertNull(decoder.decode(bad, 0, bad.length));
    }

    /** Iceberg's Parquet writer takes a Utf8's bytes as they are; a String it encodes again. */
    @Test
    void stringColumnsAreUtf8WithoutAStringOnTheWay() throws Exception {
        String schema = "{\"type\": \"object\", \"properties\": {" + TS + ", \"name\": {\"type\": \"string\","
                + " \"maxLength\": 3}, \"kind\": {\"enum\": [\"a\", \"b\"]}, \"tags\": {\"type\": \"array\","
                + " \"items\": {\"type\": \"string\"}}}, \"required\": [\"ts\"]}";
        CompiledDecoder decoder = compile(schema).decoder();
        byte[] ok = "{\"ts\": \"2024-05-06T07:08:09Z\", \"name\": \"\u00e9\\ud83d\\ude00x\", \"kind\": \"b\", \"tags\": [\"\\u0041\"]}"
                .getBytes(StandardCharsets.UTF_8);
        Record row = decoder.decode(ok, 0, ok.length);
        assertEquals(new org.apache.avro.util.Utf8("\u00e9\ud83d\ude00x"), row.getField("name"), "three code points");
        assertEquals(new org.apache.avro.util.Utf8("b"), row.getField("kind"));
        assertEquals(List.of(new org.apache.avro.util.Utf8("A")), row.getField("tags"));
        byte[] tooLong = "{\"ts\": \"2024-05-06T07:08:09Z\", \"name\": \"abcd\"}".getBytes(StandardCharsets.UTF_8);
        assertNull(decoder.decode(tooLong, 0, tooLong.length), "maxLength counts code points");
        byte[] lone = "{\"ts\": \"2024-05-06T07:08:09Z\", \"name\": \"\\ud800\"}".getBytes(StandardCharsets.UTF_8);
        assertNull(decoder.decode(lone, 0, lone.length), "an unpaired surrogate is the reference's to refuse");
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
        "{\"type\": \"array\", \"items\": {\"type\": \"string\"}, \"uniqueItems\": true} | uniqueItems",
        "{\"type\": \"object\", \"additionalProperties\": {\"type\": \"string\"}, \"propertyNames\": {\"maxLength\": 3}} | propertyNames",
        "{\"type\": \"string\", \"format\": \"email\"}                                   | format",
        "{\"type\": \"integer\", \"maximum\": 10, \"exclusiveMaximum\": true}            | exclusiveMaximum",
        "{\"type\": \"string\", \"x-vendor\": 1}                                         | x-vendor",
    })
    void anUnsupportedKeywordIsReported(String field, String keyword) throws Exception {
        CompiledDecoder.Compilation compilation = compile(schema("", field));
        assertNull(compilation.decoder());
        assertEquals(keyword, compilation.unsupported());
    }

    /** SPEC T: an enum's value is written into its string column as JSON text, as the reference writes it. */
    @Test
    void anEnumWritesItsValueAsText() throws Exception {
        String schema = "{\"type\": \"object\", \"properties\": {" + TS
                + ", \"n\": {\"type\": \"integer\", \"enum\": [1, 2]}, \"b\": {\"type\": \"boolean\", \"enum\": [true]},"
                + " \"d\": {\"enum\": [0.5, \"x\"]},"
                + " \"l\": {\"type\": \"array\", \"items\": {\"enum\": [1, 2]}}}, \"required\": [\"ts\"]}";
        byte[] doc = "{\"ts\": \"2024-05-06T07:08:09Z\", \"n\": 2.0, \"b\": true, \"d\": 0.50, \"l\": [1, 2e0]}"
                .getBytes(StandardCharsets.UTF_8);
        Record row = compile(schema).decoder().decode(doc, 0, doc.length);
        assertNotNull(row, "taken by the fast path");
        assertEquals(StringValues.of("2"), row.getField("n"));
        assertEquals(StringValues.of("true"), row.getField("b"));
        assertEquals(StringValues.of("0.5"), row.getField("d"));
        assertEquals(List.of(StringValues.of("1"), StringValues.of("2")), row.getField("l"));
        assertEquals(RecordDecoderTest.decoder("JSON", RecordDecoderTest.REGISTRY, schema, false).decode(doc), row);
    }

    /** A required property whose enum lists null (no type) takes a null: an optional column, on both paths. */
    @Test
    void aRequiredEnumListingNullTakesANull() throws Exception {
        String schema = "{\"type\": \"object\", \"properties\": {" + TS + ", \"e\": {\"enum\": [\"a\", null]}},"
                + " \"required\": [\"ts\", \"e\"]}";
        byte[] doc = "{\"ts\": \"2024-05-06T07:08:09Z\", \"e\": null}".getBytes(StandardCharsets.UTF_8);
        Record reference = RecordDecoderTest.decoder("JSON", RecordDecoderTest.REGISTRY, schema, false).decode(doc);
        assertNull(reference.getField("e"), "delivered with a null, not a dead letter");
        Record row = compile(schema).decoder().decode(doc, 0, doc.length);
        assertEquals(reference, row, "the fast path takes it as the reference does");
    }

    @Test
    void aReferenceCycleIsReported() throws Exception {
        // the reference overflows its stack on a cycle of references alone
        assertEquals("$ref", compile("{\"type\": \"object\", \"properties\": {" + TS + "}, \"required\": [\"ts\"],"
                + " \"additionalProperties\": {\"$ref\": \"#/definitions/a\"},"
                + " \"definitions\": {\"a\": {\"$ref\": \"#/definitions/b\"}, \"b\": {\"$ref\": \"#/definitions/a\"}}}")
                .unsupported());
    }

    @Test
    void wholeRecordRulesAreLeftToTheReference() throws Exception {
        CompiledDecoder decoder = compile(schema("", "{\"type\": \"integer\"}")).decoder();
        for (String doc : List.of("", "{}", "{\"ts\": \"2024-05-06T07:08:09Z\"} x", "\uFEFF{\"ts\": \"2024-05-06T07:08:09Z\"}",
                "{\"ts\": \"2024-05-06T07:08:09Z\", \"ts\": \"2024-05-06T07:08:09Z\"}", "{\"v\": 1}", "{\"ts\": null}")) {
            byte[] bytes = doc.getBytes(StandardCharsets.UTF_8);
            assertNull(decoder.decode(bytes, 0, bytes.length), doc);
        }
        byte[] overlong = {'{', '"', 't', 's', '"', ':', '"', (byte) 0xC0, (byte) 0xAF, '"', '}'};
        assertNull(decoder.decode(overlong, 0, overlong.length));
    }

    @Test
    void aMapKeepsItsMembersInOrder() throws Exception {
        String schema = schema("", "{\"type\": \"object\", \"additionalProperties\": {\"type\": [\"integer\", \"null\"]}}");
        byte[] doc = "{\"ts\": \"2024-05-06T07:08:09Z\", \"v\": {\"b\": 1, \"a\": null}}".getBytes(StandardCharsets.UTF_8);
        Record row = compile(schema).decoder().decode(doc, 0, doc.length);
        assertEquals(List.of(StringValues.of("b"), StringValues.of("a")), List.copyOf(((Map<?, ?>) row.getField("v")).keySet()));
    }

    /** Short values that repeat are made once (StringValues.Recent), whether a keyword reads them or not. */
    @Test
    void repeatedShortValuesAreOneObject() throws Exception {
        String schema = "{\"type\": \"object\", \"properties\": {" + TS
                + ", \"kind\": {\"type\": \"string\", \"enum\": [\"click\", \"view\"]},"
                + " \"tags\": {\"type\": \"array\", \"items\": {\"type\": \"string\"}}}, \"required\": [\"ts\"]}";
        CompiledDecoder decoder = compile(schema).decoder();
        byte[] first = "{\"ts\": \"2024-05-06T07:08:09Z\", \"kind\": \"click\", \"tags\": [\"vip\"]}"
                .getBytes(StandardCharsets.UTF_8);
        byte[] second = "{\"tags\": [\"web\", \"vip\"], \"kind\": \"click\", \"ts\": \"2024-05-06T07:08:10Z\"}"
                .getBytes(StandardCharsets.UTF_8);
        Record a = decoder.decode(first, 0, first.length);
        Record b = decoder.decode(second, 0, second.length);
        assertEquals(StringValues.of("click"), a.getField("kind"));
        assertSame(a.getField("kind"), b.getField("kind"));
        assertEquals(List.of(StringValues.of("web"), StringValues.of("vip")), b.getField("tags"));
        assertSame(((List<?>) a.getField("tags")).get(0), ((List<?>) b.getField("tags")).get(1));
    }
}
