package io.streamtables.convert;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamtables.schema.ChannelSchema;
import io.streamtables.schema.UnsupportedSchemaException;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.Test;

/**
 * The fast path against the reference: generated schemas over every compiled keyword, and for each,
 * valid, mutated and hostile documents. The fast path must never accept what the reference refuses, and must write
 * the reference's row when both accept. Each run draws a new seed, so every build searches new pairs; the seed is
 * printed, and {@code -Ddifferential.seed=...} replays it.
 */
class CompiledDecoderDifferentialTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** About 13 000 pairs per run; {@code -Ddifferential.schemas=} for a longer search. */
    private static final int SCHEMAS = Integer.getInteger("differential.schemas", 700);
    private static final int DOCUMENTS_PER_SCHEMA = 20;

    private enum Kind { VALID, MUTATED, HOSTILE }

    @Test
    void fastPathAgreesWithTheReference() throws Exception {
        long seed = Long.getLong("differential.seed", System.nanoTime());
        System.out.println("CompiledDecoderDifferentialTest seed " + seed + " (replay with -Ddifferential.seed=" + seed + ")");
        SplittableRandom random = new SplittableRandom(seed);
        int pairs = 0;
        int unmappable = 0;
        Map<String, Integer> unsupported = new TreeMap<>();
        Map<Kind, int[]> byKind = new LinkedHashMap<>(); // pairs, reference accepts, fast path takes of those
        for (Kind k : Kind.values()) {
            byKind.put(k, new int[3]);
        }
        for (int s = 0; s < SCHEMAS; s++) {
            Generator g = new Generator(random.split());
            String schemaText = g.schema();
            ChannelSchema channelSchema;
            RecordDecoder reference;
            try {
                channelSchema = ChannelSchema.of(JSON.readTree(schemaText), "ts");
                reference = RecordDecoderTest.decoder("JSON", RecordDecoderTest.REGISTRY, schemaText, false);
            } catch (UnsupportedSchemaException e) {
                unmappable++;
                continue;
            }
            CompiledDecoder.Compilation compilation = CompiledDecoder.compile(channelSchema, RecordDecoderTest.LIMIT);
            if (compilation.decoder() == null) {
                assertNotNull(compilation.unsupported());
                unsupported.merge(compilation.unsupported(), 1, Integer::sum);
                if (g.injected == null) {
                    fail("seed " + seed + ": schema without an injected keyword not compiled ("
                            + compilation.unsupported() + "):\n" + schemaText);
                }
                continue;
            }
            for (int d = 0; d < DOCUMENTS_PER_SCHEMA; d++) {
                Kind kind = switch (random.nextInt(20)) {
                    case 0, 1, 2, 3, 4, 5, 6, 7 -> Kind.VALID;
                    case 8, 9, 10, 11, 12, 13, 14 -> Kind.MUTATED;
                    default -> Kind.HOSTILE;
                };
                byte[] document = switch (kind) {
                    case VALID -> g.valid();
                    case MUTATED -> g.mutated();
                    case HOSTILE -> g.hostile();
                };
                Record expected = null;
                boolean accepted;
                try {
                    expected = reference.decode(document);
                    accepted = true;
                } catch (RuntimeException | StackOverflowError e) {
                    accepted = false; // a ConversionException, or whatever else the reference throws: a refusal
                }
                Record actual = compilation.decoder().decode(document, 0, document.length);
                pairs++;
                int[] counts = byKind.get(kind);
                counts[0]++;
                if (accepted) {
                    counts[1]++;
                    if (actual != null) {
                        counts[2]++;
                    }
                }
                if (actual != null && (!accepted || !actual.equals(expected))) {
                    fail("seed " + seed + ": the fast path " + (accepted ? "wrote another row" : "accepted what the "
                            + "reference refuses") + "\nschema: " + schemaText + "\ndocument ("
                            + kind + "): " + printable(document) + "\nreference: " + expected + "\nfast path: " + actual);
                }
            }
        }
        System.out.println("CompiledDecoderDifferentialTest seed " + seed + ": " + pairs + " pairs, schemas not mapped "
                + unmappable + ", not compiled " + unsupported);
        byKind.forEach((k, c) -> System.out.printf("  %-8s %6d pairs, reference accepts %6d, fast path takes %6d (%.1f %%)%n",
                k, c[0], c[1], c[2], c[1] == 0 ? 100.0 : 100.0 * c[2] / c[1]));
        assertTrue(pairs >= 10_000, "only " + pairs + " pairs");
        int[] valid = byKind.get(Kind.VALID);
        assertTrue(valid[1] > pairs / 5, "the generator's valid documents are mostly refused: " + valid[1]);
        assertTrue(valid[2] >= 0.95 * valid[1], "the fast path takes only " + valid[2] + " of " + valid[1]
                + " valid documents the reference accepts");
    }

    /** The document on one line: invalid UTF-8 as \xNN, control characters and surrogates as \\uNNNN. */
    private static String printable(byte[] document) {
        StringBuilder sb = new StringBuilder();
        String text = new String(document, StandardCharsets.UTF_8);
        if (!java.util.Arrays.equals(text.getBytes(StandardCharsets.UTF_8), document)) {
            for (byte b : document) {
                sb.append(b >= 0x20 && b < 0x7F ? String.valueOf((char) b) : String.format("\\x%02X", b & 0xFF));
            }
        } else {
            for (char c : text.toCharArray()) {
                sb.append(c < 0x20 || c == 0x2028 || c == 0x2029 || Character.isSurrogate(c)
                        ? String.format("\\u%04x", (int) c) : String.valueOf(c));
            }
        }
        return sb.length() > 4000 ? sb.substring(0, 4000) + "... (" + sb.length() + " chars)" : sb.toString();
    }

    // ---- the generator's JSON: raw text for scalars, members and elements for objects and arrays ----

    /** An object member; the key is written as it stands (escapes included). */
    private record Member(String key, Object value) {
    }

    private record Obj(List<Member> members) {
    }

    private record Arr(List<Object> elements) {
    }

    /** A field of a generated schema, the JSON Schema it writes and the values it admits. */
    private static final class Field {
        enum Type { STRING, INTEGER, NUMBER, BOOLEAN, OBJECT, ARRAY, MAP, ANY }

        Type type;
        boolean nullable;
        boolean bareEnum;
        // strings
        String format;
        String encoding;
        int minLength;
        int maxLength = -1;
        int pattern = -1;
        List<String> enumValues;
        String constValue;
        // numbers
        BigDecimal minimum;
        BigDecimal maximum;
        boolean exclusiveMinimum;
        boolean exclusiveMaximum;
        BigDecimal multipleOf;
        boolean decimal;
        // objects, arrays, maps
        Map<String, Field> properties;
        List<String> required;
        String additional; // null (absent), "true", "false", "ref", "inline"
        Field extra;
        Field items;
        int minItems;
        int maxItems = -1;
        Field values;
    }

    /** Patterns RE2 runs, with a value generator each (find semantics: unanchored patterns match anywhere). */
    private static final String[] PATTERNS = {"^[a-z]+$", "^\\d{3}-\\d{4}$", "ab", "^[A-Z][a-z]*( [A-Z][a-z]*)*$",
        "é+", "^.{2,5}$", "x|y"};

    private static final class Generator {
        private final SplittableRandom r;
        final boolean draft4;
        /** Where the referenced schemas live, and the prefix of a reference to one. */
        private final String definitions;
        private final String ref;
        private final Map<String, Field> defined = new LinkedHashMap<>();
        /** A keyword the compiler does not take, put into this schema (or null). */
        String injected;
        private Field root;

        Generator(SplittableRandom r) {
            this.r = r;
            this.draft4 = r.nextInt(4) == 0;
            this.definitions = !draft4 && r.nextBoolean() ? "$defs" : "definitions";
            this.ref = "#/" + definitions + "/";
        }

        // ---- schemas ----

        String schema() {
            root = new Field();
            root.type = Field.Type.OBJECT;
            root.properties = new LinkedHashMap<>();
            root.required = new ArrayList<>();
            Field ts = new Field();
            ts.type = Field.Type.STRING;
            ts.format = "date-time";
            root.properties.put("ts", ts);
            root.required.add("ts");
            int n = 1 + r.nextInt(8);
            for (int i = 0; i < n; i++) {
                String name = name(i);
                root.properties.put(name, field(0));
                if (r.nextInt(3) == 0) {
                    root.required.add(name);
                }
            }
            if (r.nextInt(6) == 0) {
                root.required.add("undeclared");
            }
            additional(root, 0);
            ObjectNode schema = write(root, true);
            if (draft4) {
                schema.put("$schema", "http://json-schema.org/draft-04/schema" + (r.nextBoolean() ? "#" : ""));
            } else if (r.nextBoolean()) {
                schema.put("$schema", "http://json-schema.org/draft-07/schema#");
            }
            if (r.nextInt(4) == 0) {
                schema.put("title", "generated").put("description", "a generated schema");
            }
            if (!defined.isEmpty()) {
                ObjectNode defs = schema.putObject(definitions);
                new ArrayList<>(defined.entrySet()).forEach(e -> defs.set(e.getKey(), write(e.getValue(), false)));
            }
            if (r.nextInt(20) == 0) {
                inject(schema);
            }
            return schema.toString();
        }

        /** Puts a keyword the mapper takes but the compiler does not into the schema. */
        private void inject(ObjectNode schema) {
            String[] keywords = {"uniqueItems", "minProperties", "patternProperties", "propertyNames", "dependencies",
                "readOnly", "contentMediaType"};
            injected = keywords[r.nextInt(keywords.length)];
            switch (injected) {
                case "uniqueItems", "readOnly" -> schema.put(injected, true);
                case "minProperties" -> schema.put(injected, 1);
                case "patternProperties" -> schema.putObject(injected).putObject("^x").put("type", "string");
                case "propertyNames" -> schema.putObject(injected).put("maxLength", 10);
                case "dependencies" -> schema.putObject(injected).putArray("ts").add("ts");
                default -> schema.put(injected, "application/json");
            }
        }

        private String name(int i) {
            String[] names = {"a", "b_c", "déjà", "x/y", "with space", "n~1", "\uD83D\uDE00"};
            return r.nextInt(5) == 0 ? names[r.nextInt(names.length)] + i : "f" + i;
        }

        private Field field(int depth) {
            Field f = new Field();
            int kind = r.nextInt(depth >= 2 ? 4 : 7);
            f.type = Field.Type.values()[kind];
            f.nullable = r.nextInt(5) == 0;
            switch (f.type) {
                case STRING -> string(f);
                case INTEGER -> integer(f);
                case NUMBER -> number(f);
                case OBJECT -> {
                    f.properties = new LinkedHashMap<>();
                    f.required = new ArrayList<>();
                    int n = 1 + r.nextInt(4);
                    for (int i = 0; i < n; i++) {
                        String name = name(i);
                        f.properties.put(name, field(depth + 1));
                        if (r.nextInt(3) == 0) {
                            f.required.add(name);
                        }
                    }
                    additional(f, depth);
                }
                case ARRAY -> {
                    f.items = field(depth + 1);
                    if (r.nextInt(3) == 0) {
                        f.minItems = r.nextInt(3);
                    }
                    if (r.nextInt(3) == 0) {
                        f.maxItems = f.minItems + r.nextInt(4);
                    }
                }
                case MAP -> f.values = field(depth + 1);
                default -> {
                }
            }
            return f;
        }

        private void additional(Field f, int depth) {
            switch (r.nextInt(6)) {
                case 0 -> f.additional = "true";
                case 1 -> f.additional = "false";
                case 2 -> {
                    f.additional = "ref";
                    f.extra = extra(depth);
                }
                case 3 -> {
                    f.additional = "inline";
                    f.extra = r.nextBoolean() ? field(2) : extra(depth);
                }
                default -> f.additional = null;
            }
        }

        /** A schema for unknown members: a scalar, or a recursive tree through a reference. */
        private Field extra(int depth) {
            if (r.nextInt(3) == 0) {
                if (defined.containsKey("tree")) {
                    return defined.get("tree");
                }
                Field tree = new Field();
                tree.type = Field.Type.OBJECT;
                tree.properties = new LinkedHashMap<>();
                Field value = new Field();
                value.type = Field.Type.INTEGER;
                value.maximum = BigDecimal.valueOf(1000);
                tree.properties.put("v", value);
                Field child = new Field();
                child.type = Field.Type.ANY; // stands for the reference back to the tree
                tree.properties.put("child", child);
                tree.required = List.of("v");
                defined.put("tree", tree);
                return tree;
            }
            Field f = field(2);
            defined.put("extra" + defined.size(), f);
            return f;
        }

        private void string(Field f) {
            switch (r.nextInt(10)) {
                case 0, 1 -> f.format = new String[] {"date-time", "date", "time", "uuid"}[r.nextInt(4)];
                case 2 -> f.encoding = r.nextBoolean() || draft4 ? "encoding" : "contentEncoding";
                case 3 -> {
                    f.enumValues = new ArrayList<>(List.of("red", "green", "blue", "é", "\uD83D\uDE00", ""));
                    f.bareEnum = r.nextBoolean();
                }
                case 4 -> f.pattern = r.nextInt(PATTERNS.length);
                case 5 -> {
                    if (!draft4) {
                        f.constValue = r.nextBoolean() ? "fixed" : "\uD83D\uDE00x";
                    }
                }
                default -> {
                    if (r.nextBoolean()) {
                        f.minLength = r.nextInt(3);
                    }
                    if (r.nextBoolean()) {
                        f.maxLength = f.minLength + r.nextInt(6);
                    }
                }
            }
        }

        private void integer(Field f) {
            long[] bounds = {0, 1, -5, 100, 2147483647L, 2147483648L, -2147483648L, 9007199254740993L,
                Long.MAX_VALUE, 4_000_000_000L};
            if (r.nextBoolean()) {
                f.minimum = BigDecimal.valueOf(bounds[r.nextInt(4)]);
                f.exclusiveMinimum = r.nextInt(4) == 0;
            }
            if (r.nextInt(3) > 0) {
                f.maximum = BigDecimal.valueOf(bounds[r.nextInt(bounds.length)]);
                if (f.minimum != null && f.maximum.compareTo(f.minimum) <= 0) {
                    f.maximum = f.minimum.add(BigDecimal.valueOf(50));
                }
                f.exclusiveMaximum = r.nextInt(4) == 0;
            }
            if (r.nextInt(5) == 0) {
                f.multipleOf = BigDecimal.valueOf(new int[] {2, 3, 7, 10}[r.nextInt(4)]);
            }
        }

        private void number(Field f) {
            if (r.nextBoolean()) {
                f.decimal = true;
                f.multipleOf = new BigDecimal(new String[] {"0.01", "0.5", "0.25", "1", "0.001", "5"}[r.nextInt(6)]);
            }
            if (r.nextBoolean()) {
                f.minimum = new BigDecimal(new String[] {"0", "-1.5", "0.1", "100"}[r.nextInt(4)]);
                f.exclusiveMinimum = r.nextInt(4) == 0;
            }
            if (r.nextBoolean()) {
                f.maximum = new BigDecimal(new String[] {"1000", "1e6", "250.75", "1e30"}[r.nextInt(4)]);
                if (f.minimum != null && f.maximum.compareTo(f.minimum) <= 0) {
                    f.maximum = f.minimum.add(BigDecimal.TEN);
                }
                f.exclusiveMaximum = r.nextInt(4) == 0;
            }
        }

        private ObjectNode write(Field f, boolean top) {
            ObjectNode s = NODES.objectNode();
            String type = switch (f.type) {
                case STRING -> "string";
                case INTEGER -> "integer";
                case NUMBER -> "number";
                case BOOLEAN -> "boolean";
                case OBJECT, MAP -> "object";
                case ARRAY -> "array";
                case ANY -> null;
            };
            if (f.type == Field.Type.ANY) {
                return s.put("$ref", ref + "tree");
            }
            if (!f.bareEnum) {
                if (f.nullable && !top) {
                    ArrayNode types = s.putArray("type");
                    if (r.nextBoolean()) {
                        types.add(type).add("null");
                    } else {
                        types.add("null").add(type);
                    }
                } else {
                    s.put("type", type);
                }
            }
            if (r.nextInt(10) == 0) {
                s.put("description", "a field").put("default", "x");
            }
            if (f.format != null) {
                s.put("format", f.format);
            }
            if (f.encoding != null) {
                s.put(f.encoding, "base64");
            }
            if (f.minLength > 0) {
                s.put("minLength", f.minLength);
            }
            if (f.maxLength >= 0) {
                s.put("maxLength", f.maxLength);
            }
            if (f.pattern >= 0) {
                s.put("pattern", PATTERNS[f.pattern]);
            }
            if (f.enumValues != null) {
                ArrayNode values = s.putArray("enum");
                f.enumValues.forEach(values::add);
                if (f.nullable && !f.bareEnum) {
                    values.addNull();
                }
            }
            if (f.constValue != null) {
                s.put("const", f.constValue);
            }
            bound(s, "minimum", "exclusiveMinimum", f.minimum, f.exclusiveMinimum);
            bound(s, "maximum", "exclusiveMaximum", f.maximum, f.exclusiveMaximum);
            if (f.multipleOf != null) {
                s.put("multipleOf", f.multipleOf.doubleValue());
            }
            if (f.properties != null) {
                ObjectNode properties = s.putObject("properties");
                f.properties.forEach((name, p) -> properties.set(name, write(p, false)));
                if (!f.required.isEmpty()) {
                    ArrayNode required = s.putArray("required");
                    f.required.forEach(required::add);
                }
                if ("true".equals(f.additional) || "false".equals(f.additional)) {
                    s.put("additionalProperties", Boolean.parseBoolean(f.additional));
                } else if ("ref".equals(f.additional)) {
                    String name = defined.entrySet().stream().filter(e -> e.getValue() == f.extra).findFirst()
                            .orElseThrow().getKey();
                    s.putObject("additionalProperties").put("$ref", ref + name);
                } else if ("inline".equals(f.additional)) {
                    s.set("additionalProperties", defined.containsValue(f.extra)
                            ? NODES.objectNode().put("$ref", ref + defined.entrySet().stream()
                                    .filter(e -> e.getValue() == f.extra).findFirst().orElseThrow().getKey())
                            : write(f.extra, false));
                }
            }
            if (f.items != null) {
                s.set("items", write(f.items, false));
                if (f.minItems > 0) {
                    s.put("minItems", f.minItems);
                }
                if (f.maxItems >= 0) {
                    s.put("maxItems", f.maxItems);
                }
            }
            if (f.values != null) {
                s.set("additionalProperties", write(f.values, false));
            }
            return s;
        }

        private void bound(ObjectNode s, String name, String exclusiveName, BigDecimal value, boolean exclusive) {
            if (value == null) {
                return;
            }
            if (exclusive && !draft4) {
                s.put(exclusiveName, value);
            } else {
                s.put(name, value);
                if (draft4 && (exclusive || r.nextInt(4) == 0)) {
                    s.put(exclusiveName, exclusive);
                }
            }
        }

        // ---- documents ----

        byte[] valid() {
            return bytes(serialize(value(root, 0)));
        }

        byte[] mutated() {
            Obj document = (Obj) value(root, 0);
            List<Object[]> slots = new ArrayList<>();
            slots(document, slots);
            Object[] slot = slots.get(r.nextInt(slots.size()));
            switch (r.nextInt(5)) {
                case 0 -> { // remove a member or an element
                    if (slot[0] instanceof Obj o) {
                        o.members().remove((int) slot[1]);
                    } else {
                        ((Arr) slot[0]).elements().remove((int) slot[1]);
                    }
                }
                case 1 -> { // add a member
                    Obj target = slot[0] instanceof Obj o ? o : document;
                    target.members().add(r.nextInt(target.members().size() + 1),
                            new Member(quote(r.nextBoolean() ? "extra" : "ts"), wild(0)));
                }
                default -> { // change a value: a boundary, another type, an edge of its format
                    Object value = r.nextBoolean() ? wild(0) : edge();
                    if (slot[0] instanceof Obj o) {
                        Member m = o.members().get((int) slot[1]);
                        o.members().set((int) slot[1], new Member(m.key(), value));
                    } else {
                        ((Arr) slot[0]).elements().set((int) slot[1], value);
                    }
                }
            }
            return bytes(serialize(document));
        }

        byte[] hostile() {
            String valid = serialize(value(root, 0));
            byte[] bytes = bytes(valid);
            switch (r.nextInt(16)) {
                case 0:
                    return java.util.Arrays.copyOf(bytes, r.nextInt(bytes.length));
                case 1:
                    return bytes(valid + new String[] {"x", "}", " {}", ",", " 1", "\u0000", " // c"}[r.nextInt(7)]);
                case 2:
                    return concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, bytes);
                case 3: { // invalid UTF-8 inside a string
                    byte[][] bad = {{(byte) 0xC0, (byte) 0x80}, {(byte) 0xFF}, {(byte) 0x80}, {(byte) 0xE2, (byte) 0x82},
                        {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
                        {(byte) 0xE0, (byte) 0x80, (byte) 0xAF}};
                    int at = valid.indexOf("\"ts\"") + 2;
                    return concat(concat(java.util.Arrays.copyOf(bytes, at), bad[r.nextInt(bad.length)]),
                            java.util.Arrays.copyOfRange(bytes, at, bytes.length));
                }
                case 4:
                    return bytes("{\"ts\":\"2024-01-01T00:00:00Z\"," + valid.substring(valid.indexOf('{') + 1));
                case 5: { // deep nesting, under or over the parser's limit, in a known or an unknown member
                    int depth = r.nextBoolean() ? 999 : 1001 + r.nextInt(50);
                    String open = r.nextBoolean() ? "[" : "{\"k\":";
                    String close = open.equals("[") ? "]" : "}";
                    String deep = open.repeat(depth) + "1" + close.repeat(depth);
                    return replaceValue(valid, deep);
                }
                case 6:
                    return replaceValue(valid, new String[] {"1e999999", "-1e-999999", "1" + "0".repeat(999),
                        "1" + "0".repeat(1000), "1" + "0".repeat(400), "1e401", "1e-402", "0e999999", "-0.0",
                        "1E400", "123456789012345678901234567890"}[r.nextInt(11)]);
                case 7:
                    return replaceValue(valid, new String[] {"\"\\uD800\"", "\"a\\uDC00b\"", "\"\\uD83D\\uDE00\"",
                        "\"\\u0000\"", "\"bad \\x escape\"", "\"tab\tinside\""}[r.nextInt(6)]);
                case 8:
                    return bytes(new String[] {"", " ", "null", "[]", "{}", "\"x\"", "1", "{\"ts\":null}", "{,}"}[r.nextInt(9)]);
                case 9:
                    return concat(new byte[] {0}, bytes);
                case 10:
                    return bytes(valid.replace(":", r.nextBoolean() ? " : " : ":\n\t"));
                case 11: // a duplicate member at the top
                    return bytes(valid.substring(0, valid.length() - 1) + ",\"ts\":\"2024-01-01T00:00:00Z\"}");
                case 12: // overlong encodings of ASCII, which Jackson's byte parser would read as text
                    return bytes(valid).length > 3 ? replaceBytes(bytes, (byte) 'a', new byte[] {(byte) 0xC1, (byte) 0xA1}) : bytes;
                case 13:
                    return bytes(valid.substring(0, valid.length() - 1) + ",\"" + "k".repeat(r.nextInt(3)) + "\":"
                            + serialize(wild(0)) + "}");
                default:
                    return bytes(valid.replace("\"ts\"", "\"t\\u0073\""));
            }
        }

        /** The valid document with one member's value (a random one, or a new unknown member) replaced. */
        private byte[] replaceValue(String valid, String value) {
            Obj document = (Obj) value(root, 0);
            List<Object[]> slots = new ArrayList<>();
            slots(document, slots);
            if (r.nextInt(3) == 0 || slots.isEmpty()) {
                document.members().add(new Member(quote("unknown"), value));
            } else {
                Object[] slot = slots.get(r.nextInt(slots.size()));
                if (slot[0] instanceof Obj o) {
                    o.members().set((int) slot[1], new Member(o.members().get((int) slot[1]).key(), value));
                } else {
                    ((Arr) slot[0]).elements().set((int) slot[1], value);
                }
            }
            return bytes(serialize(document));
        }

        private static byte[] replaceBytes(byte[] bytes, byte what, byte[] with) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            boolean done = false;
            for (byte b : bytes) {
                if (!done && b == what) {
                    out.write(with, 0, with.length);
                    done = true;
                } else {
                    out.write(b);
                }
            }
            return out.toByteArray();
        }

        private static void slots(Object value, List<Object[]> slots) {
            if (value instanceof Obj o) {
                for (int i = 0; i < o.members().size(); i++) {
                    slots.add(new Object[] {o, i});
                    slots(o.members().get(i).value(), slots);
                }
            } else if (value instanceof Arr a) {
                for (int i = 0; i < a.elements().size(); i++) {
                    slots.add(new Object[] {a, i});
                    slots(a.elements().get(i), slots);
                }
            }
        }

        /** A valid value of the field (as far as the generator knows: the reference decides). */
        private Object value(Field f, int depth) {
            if (f.nullable && r.nextInt(6) == 0) {
                return "null";
            }
            switch (f.type) {
                case BOOLEAN:
                    return r.nextBoolean() ? "true" : "false";
                case STRING:
                    return quote(stringValue(f));
                case INTEGER:
                    return integerValue(f);
                case NUMBER:
                    return numberValue(f);
                case ARRAY: {
                    List<Object> elements = new ArrayList<>();
                    int max = f.maxItems >= 0 ? f.maxItems : f.minItems + 4;
                    int n = f.minItems + r.nextInt(Math.max(1, max - f.minItems + 1));
                    for (int i = 0; i < n; i++) {
                        elements.add(value(f.items, depth + 1));
                    }
                    return new Arr(elements);
                }
                case MAP: {
                    List<Member> members = new ArrayList<>();
                    int n = r.nextInt(4);
                    for (int i = 0; i < n; i++) {
                        members.add(new Member(quote(new String[] {"k", "é", "\uD83D\uDE00", "a\"b", ""}[r.nextInt(5)] + i),
                                value(f.values, depth + 1)));
                    }
                    return new Obj(members);
                }
                case ANY: // the reference to the tree
                    return depth > 6 || r.nextBoolean() ? "null" : value(defined.get("tree"), depth + 1);
                default: {
                    List<Member> members = new ArrayList<>();
                    f.properties.forEach((name, p) -> {
                        if (f.required.contains(name) || r.nextInt(10) < 7) {
                            members.add(new Member(quote(name), value(p, depth + 1)));
                        }
                    });
                    if (f.required.contains("undeclared")) {
                        members.add(new Member(quote("undeclared"), f.extra != null ? value(f.extra, depth + 1) : "1"));
                    }
                    if (f.additional == null || "true".equals(f.additional)) {
                        if (r.nextInt(4) == 0) {
                            members.add(new Member(quote("unknown" + r.nextInt(3)), wild(0)));
                        }
                    } else if (f.extra != null && r.nextBoolean()) {
                        members.add(new Member(quote("more"), value(f.extra, depth + 1)));
                    }
                    java.util.Collections.shuffle(members, new java.util.Random(r.nextLong()));
                    return new Obj(members);
                }
            }
        }

        private String stringValue(Field f) {
            if (f.enumValues != null) {
                return f.enumValues.get(r.nextInt(f.enumValues.size()));
            }
            if (f.constValue != null) {
                return f.constValue;
            }
            if (f.format != null) {
                return switch (f.format) {
                    case "date-time" -> dateTime();
                    case "date" -> String.format("%04d-%02d-%02d", 1970 + r.nextInt(100), 1 + r.nextInt(12), 1 + r.nextInt(28));
                    case "time" -> String.format("%02d:%02d:%02d%s%s", r.nextInt(24), r.nextInt(60), r.nextInt(60),
                            r.nextBoolean() ? "." + r.nextInt(1000) : "", r.nextBoolean() ? "Z" : "+05:30");
                    default -> r.nextInt(5) == 0 ? UUID.randomUUID().toString().toUpperCase() : new UUID(r.nextLong(), r.nextLong()).toString();
                };
            }
            if (f.encoding != null) {
                byte[] b = new byte[r.nextInt(20)];
                r.nextBytes(b);
                return Base64.getEncoder().encodeToString(b);
            }
            if (f.pattern >= 0) {
                return switch (f.pattern) {
                    case 0 -> "abc".substring(r.nextInt(3));
                    case 1 -> String.format("%03d-%04d", r.nextInt(1000), r.nextInt(10000));
                    case 2 -> "xxabyy";
                    case 3 -> "Hello World";
                    case 4 -> "café";
                    case 5 -> "\uD83D\uDE00\uD83D\uDE00é";
                    default -> "y";
                };
            }
            int min = f.minLength;
            int max = f.maxLength >= 0 ? f.maxLength : min + 12;
            int n = min + r.nextInt(max - min + 1);
            StringBuilder sb = new StringBuilder();
            String[] pieces = {"a", "Z", "0", " ", "é", "中", "\uD83D\uDE00", "\n", "\"", "\\", "/", "\u0001", "\u2028"};
            for (int i = 0; i < n; i++) {
                sb.append(r.nextInt(3) == 0 ? pieces[r.nextInt(pieces.length)] : "a");
            }
            return sb.toString();
        }

        private String dateTime() {
            String t = String.format("%04d-%02d-%02dT%02d:%02d:%02d", 2000 + r.nextInt(50), 1 + r.nextInt(12),
                    1 + r.nextInt(28), r.nextInt(24), r.nextInt(60), r.nextInt(60));
            if (r.nextBoolean()) {
                t += "." + "123456789".substring(0, 1 + r.nextInt(9));
            }
            t += switch (r.nextInt(4)) {
                case 0 -> "+02:00";
                case 1 -> "-07:30";
                default -> "Z";
            };
            return r.nextInt(10) == 0 ? t.toLowerCase() : t;
        }

        private Object integerValue(Field f) {
            BigInteger low = f.minimum == null ? BigInteger.valueOf(-1000) : f.minimum.toBigInteger()
                    .add(f.exclusiveMinimum ? BigInteger.ONE : BigInteger.ZERO);
            BigInteger high = f.maximum == null ? low.add(BigInteger.valueOf(5000)) : f.maximum.toBigInteger()
                    .subtract(f.exclusiveMaximum ? BigInteger.ONE : BigInteger.ZERO);
            BigInteger v;
            switch (r.nextInt(5)) {
                case 0 -> v = low;
                case 1 -> v = high;
                default -> v = low.add(BigInteger.valueOf(r.nextLong(Math.max(1, Math.min(100_000,
                        high.subtract(low).longValue() + 1)))));
            }
            if (f.multipleOf != null) {
                v = v.subtract(v.mod(f.multipleOf.toBigInteger()));
            }
            String text = v.toString();
            if (!draft4 && r.nextInt(8) == 0) {
                text = r.nextBoolean() ? text + ".0" : text + "e0";
            }
            return text;
        }

        private Object numberValue(Field f) {
            BigDecimal low = f.minimum == null ? BigDecimal.valueOf(-100) : f.minimum;
            BigDecimal high = f.maximum == null ? low.add(BigDecimal.valueOf(1000)) : f.maximum;
            BigDecimal v = switch (r.nextInt(6)) {
                case 0 -> f.exclusiveMinimum ? low.add(new BigDecimal("0.5")) : low;
                case 1 -> f.exclusiveMaximum ? high.subtract(new BigDecimal("0.5")) : high;
                default -> low.add(high.subtract(low).multiply(BigDecimal.valueOf(r.nextDouble())));
            };
            if (f.multipleOf != null) {
                v = v.divide(f.multipleOf, 0, java.math.RoundingMode.FLOOR).multiply(f.multipleOf);
                if (f.exclusiveMinimum && v.compareTo(low) <= 0 || v.compareTo(low) < 0) {
                    v = v.add(f.multipleOf);
                }
            } else if (r.nextBoolean()) {
                v = v.setScale(r.nextInt(4), java.math.RoundingMode.HALF_UP);
            } else {
                v = new BigDecimal(Double.toString(v.doubleValue()));
            }
            String text = v.toPlainString();
            return switch (r.nextInt(8)) {
                case 0 -> v.toString().replace("E+", "e");
                case 1 -> v.stripTrailingZeros().toString();
                case 2 -> text.contains(".") ? text + "00" : text;
                default -> text;
            };
        }

        /** Any JSON value: boundaries and other types. */
        private Object wild(int depth) {
            switch (r.nextInt(depth > 1 ? 5 : 7)) {
                case 0:
                    return new String[] {"0", "-0", "1", "-1", "2147483647", "2147483648", "-2147483648", "-2147483649",
                        "9223372036854775807", "9223372036854775808", "-9223372036854775809", "1.5", "1.0", "1e2",
                        "-0.0", "1e308", "1e309", "4.9e-324", "1e-400", "0.1", "3.14159265358979323846264338327950288",
                        "12345678901234567890123456789012345678.9", "0.001", "100000", "1E-7", "2.5e-3"}[r.nextInt(26)];
                case 1:
                    return quote(new String[] {"", "x", "red", "2024-01-01T00:00:00Z", "2024-02-30T00:00:00Z",
                        "2016-12-31T23:59:60Z", "2024-01-01 10:00:00Z", "2024-01-01T10:00Z", "2024-01-01", "10:00:00Z",
                        "10:00:00", "25:00:00Z", UUID.randomUUID().toString(), "1-1-1-1-1", "AAAA", "AA==", "A",
                        "fixed", "é", "abc", "123-4567", "\uD83D\uDE00x", "x".repeat(70)}[r.nextInt(23)]);
                case 2:
                    return r.nextBoolean() ? "true" : "false";
                case 3:
                    return "null";
                case 4:
                    return r.nextBoolean() ? "\"\\uD800x\"" : quote("e\u00e9\\");
                case 5: {
                    List<Object> elements = new ArrayList<>();
                    for (int i = r.nextInt(3); i > 0; i--) {
                        elements.add(wild(depth + 1));
                    }
                    return new Arr(elements);
                }
                default: {
                    List<Member> members = new ArrayList<>();
                    for (int i = r.nextInt(3); i > 0; i--) {
                        members.add(new Member(quote(new String[] {"v", "child", "k" + i, "ts"}[r.nextInt(4)]), wild(depth + 1)));
                    }
                    return new Obj(members);
                }
            }
        }

        /** A value at the edge of some field's rules. */
        private Object edge() {
            return new String[] {"\"2024-01-01T00:00:00.1234567891Z\"", "\"2024-01-01T24:00:00Z\"",
                "\"0000-01-01T00:00:00Z\"", "\"2024-01-01T00:00:00+18:00\"", "\"2023-02-29\"", "\"23:59:60Z\"",
                "\"ZZZZ\"", "\"AAA=\"", "\"QUJD\\nREVG\"", "2147483647.0", "2147483648.0", "-2147483648e0", "1.0E1",
                "9223372036854775807.0", "1e19", "0.010", "0.015", "99999999999999999999999999999999999999",
                "1e38", "1e-39", "\"\\u00e9\"", "\"\\uD83D\\uDE00\"", "\"a\\u0000b\""}[r.nextInt(23)];
        }

        /** A JSON string literal, with escapes some of the time (a surrogate pair is escaped whole or not at all). */
        private String quote(String s) {
            StringBuilder sb = new StringBuilder("\"");
            for (int i = 0; i < s.length(); i += Character.charCount(s.codePointAt(i))) {
                int c = s.codePointAt(i);
                if (c == '"' || c == '\\') {
                    sb.append('\\').append((char) c);
                } else if (c < 0x20 || r.nextInt(12) == 0 && c != '/') {
                    for (char unit : Character.toChars(c)) {
                        sb.append(String.format("\\u%04x", (int) unit));
                    }
                } else if (c == '/' && r.nextBoolean()) {
                    sb.append("\\/");
                } else {
                    sb.appendCodePoint(c);
                }
            }
            return sb.append('"').toString();
        }

        private String serialize(Object value) {
            StringBuilder sb = new StringBuilder();
            serialize(value, sb);
            return r.nextInt(10) == 0 ? " \n" + sb + "\n " : sb.toString();
        }

        private void serialize(Object value, StringBuilder sb) {
            String space = r.nextInt(8) == 0 ? " " : "";
            if (value instanceof Obj o) {
                sb.append('{');
                for (int i = 0; i < o.members().size(); i++) {
                    sb.append(i == 0 ? space : "," + space).append(o.members().get(i).key()).append(':').append(space);
                    serialize(o.members().get(i).value(), sb);
                }
                sb.append(space).append('}');
            } else if (value instanceof Arr a) {
                sb.append('[');
                for (int i = 0; i < a.elements().size(); i++) {
                    sb.append(i == 0 ? "" : ",").append(space);
                    serialize(a.elements().get(i), sb);
                }
                sb.append(']');
            } else {
                sb.append((String) value);
            }
        }

        private static byte[] bytes(String s) {
            return s.getBytes(StandardCharsets.UTF_8);
        }

        private static byte[] concat(byte[] a, byte[] b) {
            byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
            System.arraycopy(b, 0, out, a.length, b.length);
            return out;
        }
    }
}
