package io.streamtables.e2e;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Random JSON Schemas (draft-04 or draft-07) drawn from SPEC table T, as a small model the document generator and
 * the checks walk: every schema has a required integer {@code id} (no maximum: long), a required date-time
 * partition field, one field of every kind of table T (names, required flags, bounds, nested contents drawn at
 * random) and a few more random fields.
 */
final class RandomSchemas {

    static final long TWO_POW_31 = 1L << 31;
    private static final ObjectMapper JSON = new ObjectMapper();

    enum Kind {
        STRING, DATETIME, DATE, UUID, BINARY, INT, LONG, DECIMAL, DOUBLE, BOOLEAN, ENUM, NULLABLE, STRUCT, MAP, LIST
    }

    /** One schema node. Only the members of its kind are set. */
    static final class Node {
        final Kind kind;
        /** INT: highest admitted value; LONG: highest admitted value or null (no bound). */
        Long maximum;
        /** INT/LONG: lowest admitted value, or null (no {@code minimum}). */
        Long minimum;
        /** INT/LONG: the bound is written as {@code exclusiveMaximum} (draft-07: maximum + 1; draft-04: boolean). */
        boolean exclusive;
        /** DECIMAL: the scale of {@code multipleOf} (10^-scale). */
        int scale;
        /** BINARY: {@code contentEncoding} instead of {@code encoding}. */
        boolean contentEncoding;
        /** ENUM: the values; {@code typed}: the enum also says {@code "type": "string"}. */
        List<String> values;
        boolean typed;
        /** NULLABLE: the non-null type; LIST: the items; MAP: the values. */
        Node inner;
        /** STRUCT. */
        List<Field> fields;

        Node(Kind kind) {
            this.kind = kind;
        }
    }

    record Field(String name, Node node, boolean required) {
    }

    /** A generated schema: its model, its JSON text and the Iceberg schema table T gives it. */
    record GeneratedSchema(int index, String name, boolean draft4, Node root, String partitionField, String json) {
    }

    private final Random random;
    private final boolean draft4;
    private final Set<String> names = new HashSet<>();

    private RandomSchemas(Random random, boolean draft4) {
        this.random = random;
        this.draft4 = draft4;
    }

    static GeneratedSchema generate(Random random, int index, boolean draft4) {
        return new RandomSchemas(random, draft4).schema(index);
    }

    private GeneratedSchema schema(int index) {
        names.add("id");
        String partition = pick("event_time", "ts", "occurred_at", "Created", "t_" + token(4));
        names.add(partition);
        List<Field> fields = new ArrayList<>();
        fields.add(new Field("id", longNode(false), true));
        fields.add(new Field(partition, new Node(Kind.DATETIME), true));
        List<Kind> kinds = new ArrayList<>(List.of(Kind.values()));
        kinds.add(Kind.LIST); // one list of strings and one list of objects at least
        for (int i = random.nextInt(4); i > 0; i--) {
            kinds.add(Kind.values()[random.nextInt(Kind.values().length)]);
        }
        java.util.Collections.shuffle(kinds, random);
        boolean listOfStrings = false;
        boolean listOfObjects = false;
        for (Kind kind : kinds) {
            Node node;
            if (kind == Kind.LIST && !listOfStrings) {
                node = list(new Node(Kind.STRING));
                listOfStrings = true;
            } else if (kind == Kind.LIST && !listOfObjects) {
                node = list(struct(1));
                listOfObjects = true;
            } else if (kind == Kind.NULLABLE) {
                node = nullable(random.nextInt(3) == 0 ? anyPrimitive() : new Node(Kind.STRING));
            } else {
                node = node(kind, 0);
            }
            fields.add(new Field(name(kind), node, random.nextInt(5) < 2));
        }
        // a plain required string, so every mutated document carries the payload marker somewhere
        fields.add(new Field(name(Kind.STRING), new Node(Kind.STRING), true));
        // id and the partition field first or anywhere: the order of properties must not matter
        List<Field> rest = new ArrayList<>(fields.subList(2, fields.size()));
        java.util.Collections.shuffle(rest, random);
        List<Field> ordered = new ArrayList<>(rest);
        ordered.add(random.nextInt(ordered.size() + 1), fields.get(1));
        ordered.add(random.nextBoolean() ? 0 : random.nextInt(ordered.size() + 1), fields.get(0));
        Node root = new Node(Kind.STRUCT);
        root.fields = ordered;
        String name = "gen" + index + "_" + token(5);
        return new GeneratedSchema(index, name, draft4, root, partition, toJson(root, name));
    }

    private Node node(Kind kind, int depth) {
        return switch (kind) {
            case INT -> intNode();
            case LONG -> longNode(random.nextInt(4) == 0);
            case DECIMAL -> {
                Node n = new Node(Kind.DECIMAL);
                int r = random.nextInt(10);
                n.scale = r < 7 ? 2 : r == 7 ? 0 : r == 8 ? 1 : 4;
                yield n;
            }
            case BINARY -> {
                Node n = new Node(Kind.BINARY);
                n.contentEncoding = !draft4 && random.nextInt(3) == 0;
                yield n;
            }
            case ENUM -> {
                Node n = new Node(Kind.ENUM);
                List<String> pool = new ArrayList<>(List.of("red", "green", "blue", "Ünïcode", "with space", "ä中😀",
                        "", "null", "0", "quote\"d", "back\\slash", "tab\t"));
                java.util.Collections.shuffle(pool, random);
                n.values = new ArrayList<>(pool.subList(0, 2 + random.nextInt(5)));
                n.typed = random.nextBoolean();
                yield n;
            }
            case NULLABLE -> nullable(anyPrimitive());
            case STRUCT -> struct(depth + 1);
            case MAP -> {
                Node n = new Node(Kind.MAP);
                n.inner = random.nextInt(5) == 0 && depth == 0 ? struct(depth + 1) : anyPrimitive();
                yield n;
            }
            case LIST -> list(random.nextInt(4) == 0 && depth == 0 ? struct(depth + 1) : anyPrimitive());
            default -> new Node(kind);
        };
    }

    private Node anyPrimitive() {
        Kind[] primitives = {Kind.STRING, Kind.DATETIME, Kind.DATE, Kind.UUID, Kind.BINARY, Kind.INT, Kind.LONG,
            Kind.DECIMAL, Kind.DOUBLE, Kind.BOOLEAN, Kind.ENUM};
        return node(primitives[random.nextInt(primitives.length)], 2);
    }

    private Node nullable(Node inner) {
        if (inner.kind == Kind.ENUM) {
            inner = new Node(Kind.STRING); // ["string","null"] with an enum would need null among the values
        }
        Node n = new Node(Kind.NULLABLE);
        n.inner = inner;
        return n;
    }

    private Node list(Node items) {
        Node n = new Node(Kind.LIST);
        n.inner = items;
        return n;
    }

    private Node struct(int depth) {
        Node n = new Node(Kind.STRUCT);
        n.fields = new ArrayList<>();
        Set<String> local = new HashSet<>();
        int count = 1 + random.nextInt(4);
        for (int i = 0; i < count; i++) {
            Node child = depth < 2 && random.nextInt(6) == 0
                    ? (random.nextBoolean() ? struct(depth + 1) : list(new Node(Kind.STRING)))
                    : random.nextInt(6) == 0 ? nullable(new Node(Kind.STRING)) : anyPrimitive();
            String name;
            do {
                name = pick("a", "b", "model", "version", "x" + token(2), "Name", "v" + random.nextInt(10));
            } while (!local.add(name));
            n.fields.add(new Field(name, child, random.nextBoolean()));
        }
        return n;
    }

    private Node intNode() {
        Node n = new Node(Kind.INT);
        long[] maxima = {100, 1000, 32767, 65535, 1_000_000, Integer.MAX_VALUE, Integer.MAX_VALUE, 0,
            1 + random.nextInt(Integer.MAX_VALUE)};
        n.maximum = maxima[random.nextInt(maxima.length)];
        int m = random.nextInt(4);
        n.minimum = m == 0 ? null : m == 1 ? Long.valueOf(0) : m == 2 ? Long.valueOf(-1000) : null;
        if (n.minimum != null && n.minimum > n.maximum) {
            n.minimum = null;
        }
        n.exclusive = random.nextInt(3) == 0; // the bound written as exclusiveMaximum = maximum + 1 (≤ 2^31: int)
        return n;
    }

    /** A long column: no bound, or a maximum above 2^31 - 1 (T0). */
    private Node longNode(boolean bounded) {
        Node n = new Node(Kind.LONG);
        if (bounded) {
            long[] maxima = {TWO_POW_31, 9_007_199_254_740_991L, 1_000_000_000_000L, Long.MAX_VALUE - 1};
            n.maximum = maxima[random.nextInt(maxima.length)];
            n.exclusive = random.nextInt(3) == 0 && n.maximum != TWO_POW_31; // exclusiveMaximum = 2^31 would be int
            if (random.nextBoolean()) {
                n.minimum = random.nextBoolean() ? 0L : -1_000_000_000_000L;
            }
        }
        return n;
    }

    private String name(Kind kind) {
        String base = switch (kind) {
            case STRING -> pick("source", "label", "s");
            case DATETIME -> pick("seen_at", "updated", "when");
            case DATE -> pick("day", "birth_date", "d");
            case UUID -> pick("uuid", "ref", "trace");
            case BINARY -> pick("blob", "payload", "raw");
            case INT -> pick("count", "qty", "level");
            case LONG -> pick("big", "offset", "nanos");
            case DECIMAL -> pick("amount", "price", "money");
            case DOUBLE -> pick("value", "ratio", "score");
            case BOOLEAN -> pick("ok", "flag", "is_new");
            case ENUM -> pick("color", "kind", "status");
            case NULLABLE -> pick("note", "maybe", "opt");
            case STRUCT -> pick("device", "geo", "meta");
            case MAP -> pick("attrs", "labels", "props");
            case LIST -> pick("tags", "items", "events");
        };
        String name = base;
        while (!names.add(name)) {
            name = base + "_" + token(3);
        }
        return name;
    }

    private String pick(String... options) {
        return options[random.nextInt(options.length)];
    }

    private String token(int length) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < length; i++) {
            sb.append("abcdefghijklmnopqrstuvwxyz0123456789".charAt(random.nextInt(36)));
        }
        return sb.toString();
    }

    // ---- JSON Schema text

    private String toJson(Node root, String title) {
        ObjectNode schema = JSON.createObjectNode();
        schema.put("$schema", draft4 ? "http://json-schema.org/draft-04/schema#" : "http://json-schema.org/draft-07/schema#");
        schema.put("title", title);
        schema.put("description", "generated by GeneratedRecordsIT");
        writeStruct(schema, root);
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(schema);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private void writeStruct(ObjectNode out, Node node) {
        out.put("type", "object");
        ObjectNode properties = out.putObject("properties");
        ArrayNode required = JSON.createArrayNode();
        for (Field f : node.fields) {
            properties.set(f.name(), write(f.node()));
            if (f.required()) {
                required.add(f.name());
            }
        }
        if (!required.isEmpty()) {
            out.set("required", required);
        }
    }

    private ObjectNode write(Node node) {
        ObjectNode out = JSON.createObjectNode();
        switch (node.kind) {
            case STRING -> out.put("type", "string");
            case DATETIME -> out.put("type", "string").put("format", "date-time");
            case DATE -> out.put("type", "string").put("format", "date");
            case UUID -> out.put("type", "string").put("format", "uuid");
            case BINARY -> out.put("type", "string").put(node.contentEncoding ? "contentEncoding" : "encoding", "base64");
            case INT, LONG -> {
                out.put("type", "integer");
                if (node.minimum != null) {
                    out.put("minimum", node.minimum);
                }
                if (node.maximum != null) {
                    if (!node.exclusive) {
                        out.put("maximum", node.maximum);
                    } else if (draft4) {
                        out.put("maximum", node.maximum + 1).put("exclusiveMaximum", true);
                    } else {
                        out.put("exclusiveMaximum", node.maximum + 1);
                    }
                }
            }
            case DECIMAL -> out.put("type", "number").put("multipleOf", java.math.BigDecimal.ONE.movePointLeft(node.scale));
            case DOUBLE -> out.put("type", "number");
            case BOOLEAN -> out.put("type", "boolean");
            case ENUM -> {
                if (node.typed) {
                    out.put("type", "string");
                }
                ArrayNode values = out.putArray("enum");
                node.values.forEach(values::add);
            }
            case NULLABLE -> {
                ObjectNode inner = write(node.inner);
                String type = inner.get("type").asText();
                ArrayNode types = inner.putArray("type");
                types.add(type);
                types.add("null");
                return inner;
            }
            case STRUCT -> writeStruct(out, node);
            case MAP -> {
                out.put("type", "object");
                out.set("additionalProperties", write(node.inner));
            }
            case LIST -> {
                out.put("type", "array");
                out.set("items", write(node.inner));
            }
        }
        return out;
    }

    // ---- the Iceberg type table T gives a node

    static Type icebergType(Node node) {
        return switch (node.kind) {
            case STRING, ENUM -> Types.StringType.get();
            case DATETIME -> Types.TimestampType.withZone();
            case DATE -> Types.DateType.get();
            case UUID -> Types.UUIDType.get();
            case BINARY -> Types.BinaryType.get();
            case INT -> Types.IntegerType.get();
            case LONG -> Types.LongType.get();
            case DECIMAL -> Types.DecimalType.of(38, node.scale);
            case DOUBLE -> Types.DoubleType.get();
            case BOOLEAN -> Types.BooleanType.get();
            case NULLABLE -> icebergType(node.inner);
            case STRUCT -> {
                List<Types.NestedField> fields = new ArrayList<>();
                int id = 1000;
                for (Field f : node.fields) {
                    boolean required = f.required() && f.node().kind != Kind.NULLABLE; // T1, T2
                    fields.add(required ? Types.NestedField.required(id++, f.name(), icebergType(f.node()))
                            : Types.NestedField.optional(id++, f.name(), icebergType(f.node())));
                }
                yield Types.StructType.of(fields);
            }
            case MAP -> Types.MapType.ofOptional(1, 2, Types.StringType.get(), icebergType(node.inner));
            case LIST -> Types.ListType.ofOptional(3, icebergType(node.inner));
        };
    }

    /** A type without field ids, with the names (sorted) and the required flags of struct fields. */
    static String describeSorted(Type type) {
        if (type.isStructType()) {
            StringBuilder sb = new StringBuilder("struct<");
            type.asStructType().fields().stream().sorted(java.util.Comparator.comparing(Types.NestedField::name))
                    .forEach(f -> sb.append(f.name()).append(f.isRequired() ? " required " : " optional ")
                            .append(describeSorted(f.type())).append(", "));
            return sb.append('>').toString();
        }
        if (type.isListType()) {
            return "list<" + describeSorted(type.asListType().elementType()) + ">";
        }
        if (type.isMapType()) {
            return "map<" + describeSorted(type.asMapType().keyType()) + ", "
                    + describeSorted(type.asMapType().valueType()) + ">";
        }
        return type.toString();
    }

    /** For failure messages: a field's path → the schema fragment it was generated from. */
    static Map<String, String> fragments(GeneratedSchema schema) {
        Map<String, String> out = new LinkedHashMap<>();
        RandomSchemas writer = new RandomSchemas(new Random(0), schema.draft4());
        for (Field f : schema.root().fields) {
            out.put(f.name(), (f.required() ? "required " : "") + writer.write(f.node()));
        }
        return out;
    }
}
