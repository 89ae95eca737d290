package io.streamtables.e2e;

import io.streamtables.e2e.RandomSchemas.Field;
import io.streamtables.e2e.RandomSchemas.GeneratedSchema;
import io.streamtables.e2e.RandomSchemas.Kind;
import io.streamtables.e2e.RandomSchemas.Node;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.data.Record;

/**
 * Random documents for a {@link GeneratedSchema}: valid ones (every value within table T, at most microsecond
 * precision), and mutated ones that must each be dead-lettered with a code. A document is a tree of
 * {@code Map<String, Object>} (objects, in order), {@code List<Object>}, {@code String}, {@code Boolean},
 * {@link Num} (a number literal, written as is) and {@code null}; it is written by a small JSON writer of its own
 * that varies escapes and white space.
 */
final class RandomDocuments {

    /** Every mutated document carries this in its string values; no DLQ object may contain it (SPEC D2). */
    static final String MARKER = "ZZMARK";
    /** Every mutated document's map keys start with this: a DLQ entry may name a field by a map key (observed only). */
    static final String KEY_MARKER = "KMARK";

    static final String SVF = "SCHEMA_VALIDATION_FAILED";
    static final String TCF = "TYPE_CONVERSION_FAILED";
    static final String MPV = "MISSING_PARTITION_VALUE";
    static final String DES = "DESERIALIZATION_ERROR";
    /** SPEC D3. */
    static final Set<String> D3 = Set.of("INVALID_SCHEMA", DES, SVF, MPV, TCF, "RECORD_TOO_LARGE");

    enum Mutation {
        WRONG_TYPE(5), WRONG_FORMAT(2), REQUIRED_REMOVED(3), PARTITION_REMOVED(3), NULL_VALUE(1), BEYOND_LONG(3),
        INT_ABOVE_MAX(3), INT_BELOW_RANGE(1), DECIMAL_EXTRA_DIGIT(3), BROKEN_JSON(3), INVALID_UTF8(3),
        OVERLONG_UTF8(2), GSR_HEADER(3), NOT_AN_OBJECT(1);

        final int weight;

        Mutation(int weight) {
            this.weight = weight;
        }
    }

    /** A number literal, written unchanged. */
    record Num(String literal) {
        BigDecimal decimal() {
            return new BigDecimal(literal);
        }

        @Override
        public String toString() {
            return literal;
        }
    }

    /**
     * @param id unique among all documents of a run, null when the mutation took it away
     * @param doc the document, null when the bytes are not a JSON object (broken JSON, GSR header, ...)
     * @param codes the DLQ codes a mutated document may get; empty for a valid one
     */
    record GenDoc(int schema, int index, Long id, Map<String, Object> doc, byte[] data, String partitionKey,
            Mutation mutation, Set<String> codes, String detail) {

        boolean valid() {
            return mutation == null;
        }

        String text() {
            String s = new String(data, StandardCharsets.UTF_8);
            return s.length() > 1500 ? s.substring(0, 1500) + "…(" + data.length + " bytes)" : s;
        }

        String describe() {
            return "schema " + schema + " doc " + index + " id " + id + (valid() ? " (valid)"
                    : " (" + mutation + ": " + detail + ", codes " + codes + ")");
        }
    }

    /** Unique ids over the whole run. */
    static final class Ids {
        private final Random random;
        private final Set<Long> used = new HashSet<>();
        private long counter;

        Ids(Random random) {
            this.random = random;
            this.counter = 1 + random.nextInt(1000);
        }

        long next() {
            while (true) {
                int r = random.nextInt(20);
                long id = r < 14 ? counter++ : r < 18 ? random.nextLong()
                        : r == 18 ? Long.MAX_VALUE - random.nextInt(3) : Long.MIN_VALUE + random.nextInt(3);
                if (used.add(id)) {
                    return id;
                }
            }
        }
    }

    private static final ZoneOffset[] OFFSETS = {ZoneOffset.UTC, ZoneOffset.UTC, ZoneOffset.ofHoursMinutes(5, 30),
        ZoneOffset.ofHours(-7), ZoneOffset.ofHours(14), ZoneOffset.ofHours(-12), ZoneOffset.ofHours(18),
        ZoneOffset.ofHours(-18), ZoneOffset.ofHoursMinutes(-9, -30), ZoneOffset.ofHoursMinutes(1, 23)};
    private static final String[] CHARS = {"a", "Z", "0", " ", "é", "ß", "中", "文", "😀", "𝄞", "\"", "\\", "/", "\n",
        "\t", "\r", "\u0000", "\u0001", "\u001f", "\u007f", "\u2028", "\u2029", "\uFEFF", "\uFFFD", "ÿ", "Ω", "\b",
        "\f", "'", "<", "&", "{", "}", "[", "]", ",", ":"};
    private static final byte[][] INVALID_UTF8 = {{(byte) 0xFF}, {(byte) 0xFE}, {(byte) 0x80},
        {(byte) 0xE2, (byte) 0x82}, {(byte) 0xC3}, {(byte) 0xF8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80},
        {(byte) 0xED, (byte) 0xA0, (byte) 0x80}, {(byte) 0xC3, (byte) 0x28}};
    /** Overlong encodings and a code point above U+10FFFF: not UTF-8 either (RFC 3629). */
    private static final byte[][] OVERLONG_UTF8 = {{(byte) 0xC0, (byte) 0xAF}, {(byte) 0xE0, (byte) 0x80, (byte) 0xAF},
        {(byte) 0xC1, (byte) 0xBF}, {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
        {(byte) 0xC0, (byte) 0x80}};

    private final GeneratedSchema schema;
    private final Random random;
    private final Ids ids;
    private final Instant partitionBase;
    private final Set<Mutation> mutations;
    private boolean marker;
    private long currentId;

    RandomDocuments(GeneratedSchema schema, Random random, Ids ids, Instant partitionBase, Set<Mutation> mutations) {
        this.schema = schema;
        this.random = random;
        this.ids = ids;
        this.partitionBase = partitionBase;
        this.mutations = mutations.isEmpty() ? EnumSet.allOf(Mutation.class) : mutations;
    }

    GenDoc next(int index, boolean mutate) {
        long id = ids.next();
        currentId = id;
        marker = mutate;
        Map<String, Object> doc = struct(schema.root(), 0);
        doc.put("id", new Num(integerLiteral(id)));
        if (!mutate && random.nextInt(20) == 0) {
            doc.put("extra_" + Integer.toString(random.nextInt(1000), 36), value(anyNode(), 1)); // not in the schema
        }
        String partitionKey = "pk-" + Long.toHexString(random.nextLong());
        if (!mutate) {
            return new GenDoc(schema.index(), index, id, doc, utf8(write(doc)), partitionKey, null, Set.of(), null);
        }
        for (int attempt = 0; attempt < 50; attempt++) {
            Mutation m = pickMutation();
            GenDoc mutated = mutate(m, index, id, copy(doc), partitionKey);
            if (mutated != null) {
                return mutated;
            }
        }
        throw new IllegalStateException("no mutation applies to " + doc);
    }

    private Mutation pickMutation() {
        int total = mutations.stream().mapToInt(m -> m.weight).sum();
        int r = random.nextInt(total);
        for (Mutation m : mutations) {
            r -= m.weight;
            if (r < 0) {
                return m;
            }
        }
        throw new IllegalStateException();
    }

    // ---- valid values

    private Map<String, Object> struct(Node node, int depth) {
        Map<String, Object> out = new LinkedHashMap<>();
        List<Field> fields = new ArrayList<>(node.fields);
        if (random.nextInt(3) == 0) {
            java.util.Collections.shuffle(fields, random); // the document's key order need not follow the schema
        }
        for (Field f : fields) {
            boolean isPartition = depth == 0 && f.name().equals(schema.partitionField());
            if (!f.required() && random.nextInt(100) < (marker ? 15 : 35)) {
                continue; // optional and absent
            }
            out.put(f.name(), isPartition ? dateTime(partitionBase.plusMillis(random.nextInt(5 * 3600 * 1000))
                    .plusNanos(random.nextInt(1000) * 1000L), random.nextInt(4) == 0) : value(f.node(), depth + 1));
        }
        return out;
    }

    private Object value(Node node, int depth) {
        return switch (node.kind) {
            case STRING -> (marker ? MARKER + currentId + "-" : "") + string();
            case DATETIME -> dateTime(randomInstant(), random.nextInt(4) == 0);
            case DATE -> randomDate().toString();
            case UUID -> uuid();
            case BINARY -> {
                byte[] bytes = new byte[random.nextInt(5) == 0 ? 0 : random.nextInt(64)];
                random.nextBytes(bytes);
                yield Base64.getEncoder().encodeToString(bytes);
            }
            case INT -> new Num(integerLiteral(intValue(node)));
            case LONG -> new Num(integerLiteral(longValue(node)));
            case DECIMAL -> new Num(decimalLiteral(node.scale));
            case DOUBLE -> new Num(doubleLiteral());
            case BOOLEAN -> random.nextBoolean();
            case ENUM -> node.values.get(random.nextInt(node.values.size()));
            case NULLABLE -> random.nextInt(3) == 0 ? null : value(node.inner, depth);
            case STRUCT -> struct(node, depth);
            case MAP -> {
                Map<String, Object> map = new LinkedHashMap<>();
                for (int i = random.nextInt(5); i > 0; i--) {
                    map.put((marker ? KEY_MARKER : "") + mapKey(), value(node.inner, depth + 1));
                }
                yield map;
            }
            case LIST -> {
                List<Object> list = new ArrayList<>();
                for (int i = random.nextInt(5); i > 0; i--) {
                    list.add(value(node.inner, depth + 1));
                }
                yield list;
            }
        };
    }

    private Node anyNode() {
        Node n = new Node(Kind.values()[random.nextInt(11)]);
        if (n.kind == Kind.ENUM) {
            n.values = List.of("x");
        }
        if (n.kind == Kind.INT) {
            n.maximum = 10L;
        }
        return n;
    }

    private String string() {
        int r = random.nextInt(20);
        if (r == 0) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        int length = r == 1 ? 500 + random.nextInt(2500) : 1 + random.nextInt(24);
        for (int i = 0; i < length; i++) {
            sb.append(r < 10 ? Character.toString('a' + random.nextInt(26)) : CHARS[random.nextInt(CHARS.length)]);
        }
        return sb.toString();
    }

    private String mapKey() {
        String[] keys = {"k", "region", "Key With Space", "ключ", "a/b", "t~1", "", "😀", "0", "dup"};
        return keys[random.nextInt(keys.length)] + (random.nextBoolean() ? "" : Integer.toString(random.nextInt(100)));
    }

    private Instant randomInstant() {
        int r = random.nextInt(10);
        long from;
        long to;
        if (r < 7) {
            from = Instant.parse("1970-01-01T00:00:00Z").getEpochSecond();
            to = Instant.parse("2100-01-01T00:00:00Z").getEpochSecond();
        } else if (r < 9) {
            from = Instant.parse("1900-01-01T00:00:00Z").getEpochSecond();
            to = 0;
        } else {
            from = Instant.parse("0001-01-02T00:00:00Z").getEpochSecond();
            to = Instant.parse("9999-12-30T00:00:00Z").getEpochSecond();
        }
        return Instant.ofEpochSecond(from + (long) (random.nextDouble() * (to - from)));
    }

    /** RFC 3339 with 0 to 6 fractional digits, any offset, sometimes lower case or a space as separator. */
    private String dateTime(Instant instant, boolean oddStyle) {
        int digits = random.nextInt(7);
        long fraction = digits == 0 ? 0 : (long) (random.nextDouble() * Math.pow(10, digits));
        Instant t = instant.truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                .plusNanos(fraction * (long) Math.pow(10, 9 - digits));
        ZoneOffset offset = OFFSETS[random.nextInt(OFFSETS.length)];
        LocalDateTime local = LocalDateTime.ofInstant(t, offset);
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%04d-%02d-%02d", local.getYear(),
                local.getMonthValue(), local.getDayOfMonth()));
        sb.append(oddStyle ? (random.nextBoolean() ? 't' : ' ') : 'T');
        sb.append(String.format(Locale.ROOT, "%02d:%02d:%02d", local.getHour(), local.getMinute(), local.getSecond()));
        if (digits > 0) {
            sb.append('.').append(String.format(Locale.ROOT, "%0" + digits + "d", fraction));
        }
        if (offset.getTotalSeconds() == 0 && random.nextInt(3) > 0) {
            sb.append(oddStyle && random.nextBoolean() ? 'z' : 'Z');
        } else {
            sb.append(offset.getTotalSeconds() == 0 ? "+00:00" : offset.getId());
        }
        return sb.toString();
    }

    private LocalDate randomDate() {
        boolean wide = random.nextInt(10) == 0;
        long from = wide ? LocalDate.of(1, 1, 1).toEpochDay() : LocalDate.of(1900, 1, 1).toEpochDay();
        long to = wide ? LocalDate.of(9999, 12, 31).toEpochDay() : LocalDate.of(2100, 1, 1).toEpochDay();
        return LocalDate.ofEpochDay(from + (long) (random.nextDouble() * (to - from)));
    }

    private String uuid() {
        int r = random.nextInt(20);
        UUID u = r == 0 ? new UUID(0, 0) : r == 1 ? new UUID(-1L, -1L)
                : new UUID((random.nextLong() & ~0xF000L) | 0x4000L,
                        (random.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L);
        return random.nextInt(6) == 0 ? u.toString().toUpperCase(Locale.ROOT) : u.toString();
    }

    private long intValue(Node node) {
        long min = node.minimum == null ? Integer.MIN_VALUE : node.minimum;
        long max = node.maximum;
        return boundedValue(min, max);
    }

    private long longValue(Node node) {
        long min = node.minimum == null ? Long.MIN_VALUE : node.minimum;
        long max = node.maximum == null ? Long.MAX_VALUE : node.maximum;
        return boundedValue(min, max);
    }

    private long boundedValue(long min, long max) {
        int r = random.nextInt(12);
        long v = switch (r) {
            case 0 -> min;
            case 1 -> max;
            case 2 -> 0;
            case 3 -> -1;
            case 4 -> random.nextInt(100);
            default -> {
                BigInteger span = BigInteger.valueOf(max).subtract(BigInteger.valueOf(min)).add(BigInteger.ONE);
                BigInteger offset = new BigInteger(span.bitLength() + 8, random).mod(span);
                yield BigInteger.valueOf(min).add(offset).longValueExact();
            }
        };
        return Math.max(min, Math.min(max, v));
    }

    /** An integer literal; in draft-07 sometimes with a zero fraction or an exponent (still an integer). */
    private String integerLiteral(long v) {
        if (!schema.draft4()) {
            int r = random.nextInt(25);
            if (r == 0) {
                return v + ".0";
            }
            if (r == 1 && v != 0 && v % 100 == 0) {
                return (v / 100) + "e2";
            }
            if (r == 2 && v != 0 && v % 10 == 0) {
                return BigDecimal.valueOf(v).movePointLeft(1).toPlainString() + "E+1";
            }
        }
        return Long.toString(v);
    }

    private String decimalLiteral(int scale) {
        int r = random.nextInt(20);
        int digits = r == 0 ? 38 : r < 3 ? 20 + random.nextInt(18) : 1 + random.nextInt(12);
        BigInteger unscaled = new BigInteger(digits * 4, random).mod(BigInteger.TEN.pow(digits));
        if (random.nextBoolean()) {
            unscaled = unscaled.negate();
        }
        BigDecimal value = new BigDecimal(unscaled, scale);
        int form = random.nextInt(10);
        if (form == 0) {
            return value.stripTrailingZeros().toPlainString(); // fewer decimals than the scale
        }
        if (form == 1) {
            return value.setScale(scale + 2).toPlainString(); // trailing zeros beyond the scale
        }
        if (form == 2) {
            return value.stripTrailingZeros().toString().replace("E+", "E"); // exponent form when shorter
        }
        return value.toPlainString();
    }

    private String doubleLiteral() {
        int r = random.nextInt(20);
        double d = switch (r) {
            case 0 -> 0.0;
            case 1 -> Double.MIN_VALUE;
            case 2 -> Double.MAX_VALUE;
            case 3 -> -Double.MAX_VALUE;
            case 4 -> 0.1;
            case 5 -> random.nextInt(2001) - 1000;
            case 6, 7 -> {
                double x;
                do {
                    x = Double.longBitsToDouble(random.nextLong());
                } while (Double.isNaN(x) || Double.isInfinite(x));
                yield x;
            }
            default -> random.nextGaussian() * Math.pow(10, random.nextInt(16) - 4);
        };
        if (r == 5) {
            return Long.toString((long) d); // an integer literal in a number column
        }
        if (random.nextInt(15) == 0) {
            return new BigDecimal(d).toString(); // the exact binary value, written out in full
        }
        return Double.toString(d);
    }

    // ---- mutations

    /** A value in the document with the schema node it was generated from. */
    private record Slot(Object parent, Object key, Node node, boolean requiredField, boolean partition, String pointer) {
        Object get() {
            return parent instanceof Map<?, ?> m ? m.get(key) : ((List<?>) parent).get((Integer) key);
        }

        @SuppressWarnings("unchecked")
        void set(Object value) {
            if (parent instanceof Map<?, ?>) {
                ((Map<String, Object>) parent).put((String) key, value);
            } else {
                ((List<Object>) parent).set((Integer) key, value);
            }
        }

        void remove() {
            ((Map<?, ?>) parent).remove(key);
        }

        /** The node of the value: a nullable's inner type. */
        Node effective() {
            return node.kind == Kind.NULLABLE ? node.inner : node;
        }
    }

    private List<Slot> slots(Map<String, Object> doc) {
        List<Slot> out = new ArrayList<>();
        collect(doc, schema.root(), "", true, out);
        return out;
    }

    @SuppressWarnings("unchecked")
    private void collect(Map<String, Object> object, Node struct, String pointer, boolean top, List<Slot> out) {
        for (Field f : struct.fields) {
            if (!object.containsKey(f.name())) {
                if (f.required()) {
                    throw new IllegalStateException("required " + f.name() + " absent");
                }
                continue;
            }
            Slot slot = new Slot(object, f.name(), f.node(), f.required(), top && f.name().equals(schema.partitionField()),
                    pointer + "/" + f.name());
            out.add(slot);
            descend(slot, out);
        }
    }

    @SuppressWarnings("unchecked")
    private void descend(Slot slot, List<Slot> out) {
        Object v = slot.get();
        Node node = slot.effective();
        if (v == null) {
            return;
        }
        switch (node.kind) {
            case STRUCT -> collect((Map<String, Object>) v, node, slot.pointer(), false, out);
            case MAP -> ((Map<String, Object>) v).keySet().forEach(k -> {
                Slot child = new Slot(v, k, node.inner, false, false, slot.pointer() + "/" + k);
                out.add(child);
                descend(child, out);
            });
            case LIST -> {
                List<Object> list = (List<Object>) v;
                for (int i = 0; i < list.size(); i++) {
                    Slot child = new Slot(list, i, node.inner, false, false, slot.pointer() + "/" + i);
                    out.add(child);
                    descend(child, out);
                }
            }
            default -> {
            }
        }
    }

    private Slot pick(List<Slot> slots, java.util.function.Predicate<Slot> filter) {
        List<Slot> candidates = slots.stream().filter(filter).toList();
        return candidates.isEmpty() ? null : candidates.get(random.nextInt(candidates.size()));
    }

    private GenDoc mutate(Mutation m, int index, long id, Map<String, Object> doc, String partitionKey) {
        List<Slot> slots = slots(doc);
        Set<String> codes;
        String detail;
        Long docId = id;
        switch (m) {
            case WRONG_TYPE -> {
                Slot s = pick(slots, x -> true);
                Object wrong = wrongType(s.effective());
                detail = s.pointer() + " (" + s.effective().kind + ") = " + render(wrong);
                s.set(wrong);
                codes = Set.of(SVF);
                if (s.pointer().equals("/id")) {
                    docId = null;
                }
            }
            case WRONG_FORMAT -> {
                Slot s = pick(slots, x -> EnumSet.of(Kind.DATETIME, Kind.DATE, Kind.UUID, Kind.BINARY)
                        .contains(x.effective().kind) && x.get() != null);
                if (s == null) {
                    return null;
                }
                String bad = switch (s.effective().kind) {
                    case DATETIME -> pickOf("2024-13-01T00:00:00Z", "2024-02-30T10:00:00Z", "2024-01-01T25:00:00Z",
                            "2024-01-01", "yesterday " + MARKER, "2024-01-01T10:00:00+19:30", "2024-01-01T10:00:00");
                    case DATE -> pickOf("2023-02-29", "2024-00-10", "24-01-01", "2024/01/01", MARKER + " day",
                            "2024-01-01T00:00:00Z");
                    case UUID -> pickOf("not-a-uuid-" + MARKER, "123e4567-e89b-12d3-a456-42661417400",
                            "123e4567e89b12d3a456426614174000x", "g23e4567-e89b-12d3-a456-426614174000");
                    default -> pickOf("!!" + MARKER + "!!", "YWJj*", "a===", "@@@@");
                };
                detail = s.pointer() + " (" + s.effective().kind + ") = " + bad;
                s.set(bad);
                codes = Set.of(SVF, TCF);
            }
            case REQUIRED_REMOVED -> {
                Slot s = pick(slots, x -> x.requiredField() && !x.partition());
                if (s == null) {
                    return null;
                }
                detail = "removed required " + s.pointer();
                s.remove();
                codes = Set.of(SVF);
                if (s.pointer().equals("/id")) {
                    docId = null;
                }
            }
            case PARTITION_REMOVED -> {
                Slot s = pick(slots, Slot::partition);
                boolean asNull = random.nextInt(3) == 0;
                detail = (asNull ? "null " : "removed ") + s.pointer();
                if (asNull) {
                    s.set(null);
                } else {
                    s.remove();
                }
                codes = Set.of(MPV);
            }
            case NULL_VALUE -> {
                Slot s = pick(slots, x -> x.node().kind != Kind.NULLABLE && !x.partition());
                detail = "null " + s.pointer() + " (" + s.node().kind + ")";
                s.set(null);
                codes = Set.of(SVF);
                if (s.pointer().equals("/id")) {
                    docId = null;
                }
            }
            case BEYOND_LONG -> {
                Slot s = pick(slots, x -> x.effective().kind == Kind.LONG && (x.node().kind != Kind.NULLABLE || x.get() != null));
                BigInteger beyond = BigInteger.TWO.pow(63 + random.nextInt(40)).add(BigInteger.valueOf(random.nextInt(1000)));
                Node n = s.effective();
                boolean negative = random.nextBoolean();
                if (negative) {
                    beyond = beyond.negate().subtract(BigInteger.ONE);
                }
                boolean bounded = negative ? n.minimum != null : n.maximum != null;
                s.set(new Num(beyond.toString()));
                detail = s.pointer() + " (LONG, " + bounds(n) + ") = " + beyond;
                codes = Set.of(bounded ? SVF : TCF);
                if (s.pointer().equals("/id")) {
                    docId = null;
                }
            }
            case INT_ABOVE_MAX -> {
                Slot s = pick(slots, x -> x.effective().kind == Kind.INT && (x.node().kind != Kind.NULLABLE || x.get() != null));
                if (s == null) {
                    return null;
                }
                long v = s.effective().maximum + 1 + (random.nextBoolean() ? 0 : random.nextInt(1_000_000));
                s.set(new Num(Long.toString(v)));
                detail = s.pointer() + " (INT, " + bounds(s.effective()) + ") = " + v;
                codes = Set.of(SVF);
            }
            case INT_BELOW_RANGE -> {
                Slot s = pick(slots, x -> x.effective().kind == Kind.INT && (x.node().kind != Kind.NULLABLE || x.get() != null));
                if (s == null) {
                    return null;
                }
                long v = (long) Integer.MIN_VALUE - 1 - (random.nextBoolean() ? 0 : random.nextInt(1_000_000));
                s.set(new Num(Long.toString(v)));
                detail = s.pointer() + " (INT, " + bounds(s.effective()) + ") = " + v;
                codes = Set.of(s.effective().minimum == null ? TCF : SVF); // T0: no wrap-around
            }
            case DECIMAL_EXTRA_DIGIT -> {
                Slot s = pick(slots, x -> x.effective().kind == Kind.DECIMAL && (x.node().kind != Kind.NULLABLE || x.get() != null));
                if (s == null) {
                    return null;
                }
                int scale = s.effective().scale;
                BigDecimal v = new BigDecimal(BigInteger.valueOf(random.nextInt(1_000_000)).multiply(BigInteger.TEN)
                        .add(BigInteger.valueOf(1 + random.nextInt(9))), scale + 1);
                if (random.nextBoolean()) {
                    v = v.negate();
                }
                s.set(new Num(v.toPlainString()));
                detail = s.pointer() + " (DECIMAL scale " + scale + ") = " + v.toPlainString();
                codes = Set.of(SVF, TCF);
            }
            case NOT_AN_OBJECT -> {
                String text = pickOf("[" + write(doc) + "]", "\"" + MARKER + "\"", "42", "true", "null", "[]");
                return new GenDoc(schema.index(), index, null, null, utf8(text), partitionKey, m, Set.of(SVF, DES),
                        "top level " + text.substring(0, Math.min(8, text.length())));
            }
            case BROKEN_JSON -> {
                String text = write(doc);
                int variant = random.nextInt(4);
                String broken = switch (variant) {
                    case 0 -> text.substring(0, 1 + random.nextInt(text.length() - 1));
                    case 1 -> text + " " + MARKER;
                    case 2 -> text.replaceFirst("\"(\\s*):", "\"$1;");
                    default -> text.replaceFirst("\"" + MARKER, "'" + MARKER);
                };
                return new GenDoc(schema.index(), index, null, null, utf8(broken), partitionKey, m, Set.of(DES),
                        List.of("truncated", "trailing text", "';' for ':'", "single quote").get(variant));
            }
            case INVALID_UTF8, OVERLONG_UTF8 -> {
                byte[][] pool = m == Mutation.INVALID_UTF8 ? INVALID_UTF8 : OVERLONG_UTF8;
                byte[] bad = pool[random.nextInt(pool.length)];
                byte[] text = utf8(write(doc));
                int at = indexOf(text, utf8(MARKER));
                byte[] out = new byte[text.length + bad.length];
                System.arraycopy(text, 0, out, 0, at);
                System.arraycopy(bad, 0, out, at, bad.length);
                System.arraycopy(text, at, out, at + bad.length, text.length - at);
                return new GenDoc(schema.index(), index, id, doc, out, partitionKey, m, Set.of(DES),
                        "bytes " + java.util.HexFormat.of().formatHex(bad) + " at byte " + at);
            }
            case GSR_HEADER -> {
                byte[] text = utf8(write(doc));
                byte[] out = new byte[18 + text.length];
                out[0] = 3;
                out[1] = 0;
                byte[] version = new byte[16];
                random.nextBytes(version);
                System.arraycopy(version, 0, out, 2, 16);
                System.arraycopy(text, 0, out, 18, text.length);
                return new GenDoc(schema.index(), index, id, doc, out, partitionKey, m, Set.of(DES),
                        "GSR header 03 00 + 16 bytes");
            }
            default -> throw new IllegalStateException(m.name());
        }
        return new GenDoc(schema.index(), index, docId, doc, utf8(write(doc)), partitionKey, m, codes, detail);
    }

    private static String bounds(Node n) {
        return "minimum " + n.minimum + ", maximum " + n.maximum + (n.exclusive ? " (as exclusiveMaximum)" : "");
    }

    private Object wrongType(Node node) {
        return switch (node.kind) {
            case STRING, DATETIME, DATE, UUID, BINARY -> random.nextBoolean() ? new Num(Integer.toString(random.nextInt()))
                    : random.nextBoolean() ? (Object) Boolean.TRUE : List.of(MARKER);
            case INT, LONG -> random.nextBoolean() ? MARKER + "-" + random.nextInt(100)
                    : random.nextBoolean() ? new Num(random.nextInt(100) + ".5") : Boolean.FALSE;
            case DECIMAL, DOUBLE -> random.nextBoolean() ? MARKER + "1.5" : Boolean.TRUE;
            case BOOLEAN -> random.nextBoolean() ? "true " + MARKER : new Num("1");
            case ENUM -> MARKER + "-not-in-enum";
            case NULLABLE -> wrongType(node.inner);
            case STRUCT -> random.nextBoolean() ? MARKER : new ArrayList<>(List.of(MARKER));
            case MAP -> random.nextBoolean() ? new ArrayList<>(List.of(MARKER)) : MARKER;
            case LIST -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("x", MARKER);
                yield random.nextBoolean() ? m : MARKER;
            }
        };
    }

    @SafeVarargs
    private <T> T pickOf(T... options) {
        return options[random.nextInt(options.length)];
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new IllegalStateException("no marker in the document");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> copy(Map<String, Object> doc) {
        return (Map<String, Object>) deepCopy(doc);
    }

    @SuppressWarnings("unchecked")
    private static Object deepCopy(Object v) {
        if (v instanceof Map<?, ?> m) {
            Map<String, Object> out = new LinkedHashMap<>();
            ((Map<String, Object>) m).forEach((k, x) -> out.put(k, deepCopy(x)));
            return out;
        }
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            l.forEach(x -> out.add(deepCopy(x)));
            return out;
        }
        return v;
    }

    // ---- the JSON writer

    private String write(Object value) {
        StringBuilder sb = new StringBuilder();
        boolean spaced = random.nextInt(4) == 0;
        boolean escapeNonAscii = random.nextInt(5) == 0;
        write(sb, value, spaced, escapeNonAscii);
        return sb.toString();
    }

    static String render(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value, false, false);
        return sb.toString();
    }

    private static void write(StringBuilder sb, Object value, boolean spaced, boolean escapeNonAscii) {
        if (value == null) {
            sb.append("null");
        } else if (value instanceof Num n) {
            sb.append(n.literal());
        } else if (value instanceof Boolean b) {
            sb.append(b);
        } else if (value instanceof String s) {
            string(sb, s, escapeNonAscii);
        } else if (value instanceof Map<?, ?> m) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                sb.append(first ? "" : ",").append(spaced ? "\n  " : "");
                first = false;
                string(sb, (String) e.getKey(), escapeNonAscii);
                sb.append(spaced ? " : " : ":");
                write(sb, e.getValue(), spaced, escapeNonAscii);
            }
            sb.append(spaced ? "\n}" : "}");
        } else if (value instanceof List<?> l) {
            sb.append('[');
            for (int i = 0; i < l.size(); i++) {
                sb.append(i == 0 ? "" : spaced ? ", " : ",");
                write(sb, l.get(i), spaced, escapeNonAscii);
            }
            sb.append(']');
        } else {
            throw new IllegalArgumentException(value.getClass().getName());
        }
    }

    private static void string(StringBuilder sb, String s, boolean escapeNonAscii) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                case '\r' -> sb.append("\\r");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                case '/' -> sb.append(escapeNonAscii ? "\\/" : "/");
                default -> {
                    if (c < 0x20 || (escapeNonAscii && c > 0x7e)) {
                        sb.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    // ---- the checks: a table row against the document it came from

    /** Compares every field of the schema between the document and the row; differences go to {@code diffs}. */
    static void compareRow(GeneratedSchema schema, Map<String, Object> doc, Record row, List<String> diffs) {
        compareStruct(schema.root(), doc, row, "", diffs);
    }

    private static void compareStruct(Node node, Map<?, ?> doc, Record row, String path, List<String> diffs) {
        for (Field f : node.fields) {
            Object want = doc.get(f.name());
            Object got;
            try {
                got = row.getField(f.name());
            } catch (RuntimeException e) {
                diffs.add(path + "/" + f.name() + ": no such column in the row (" + e + ")");
                continue;
            }
            compare(f.node(), want, got, path + "/" + f.name(), diffs);
        }
    }

    @SuppressWarnings("unchecked")
    private static void compare(Node node, Object want, Object got, String path, List<String> diffs) {
        if (want == null || got == null) {
            if (want != got) {
                diffs.add(path + ": sent " + render(want) + ", read " + show(got));
            }
            return;
        }
        Object expected;
        boolean equal;
        try {
            switch (node.kind) {
                case STRING, ENUM -> {
                    expected = want;
                    equal = got instanceof CharSequence && want.equals(got.toString());
                }
                case DATETIME -> {
                    expected = instant((String) want);
                    equal = got instanceof OffsetDateTime o && o.toInstant().equals(expected);
                }
                case DATE -> {
                    expected = LocalDate.parse((String) want);
                    equal = expected.equals(got);
                }
                case UUID -> {
                    expected = java.util.UUID.fromString((String) want);
                    equal = expected.equals(got);
                }
                case BINARY -> {
                    byte[] bytes = Base64.getDecoder().decode((String) want);
                    expected = java.util.HexFormat.of().formatHex(bytes);
                    equal = got instanceof ByteBuffer b && Arrays.equals(bytes, bytes(b));
                }
                case INT -> {
                    expected = ((Num) want).decimal().intValueExact();
                    equal = expected.equals(got);
                }
                case LONG -> {
                    expected = ((Num) want).decimal().toBigIntegerExact().longValueExact();
                    equal = expected.equals(got);
                }
                case DECIMAL -> {
                    expected = ((Num) want).decimal();
                    equal = got instanceof BigDecimal b && b.compareTo((BigDecimal) expected) == 0
                            && b.scale() == node.scale;
                }
                case DOUBLE -> {
                    double d = ((Num) want).decimal().doubleValue();
                    expected = d;
                    equal = got instanceof Double g && g == d;
                }
                case BOOLEAN -> {
                    expected = want;
                    equal = want.equals(got);
                }
                case NULLABLE -> {
                    compare(node.inner, want, got, path, diffs);
                    return;
                }
                case STRUCT -> {
                    if (!(got instanceof Record r)) {
                        diffs.add(path + ": read a " + got.getClass().getName() + ", not a struct");
                        return;
                    }
                    compareStruct(node, (Map<?, ?>) want, r, path, diffs);
                    return;
                }
                case MAP -> {
                    Map<String, Object> w = (Map<String, Object>) want;
                    if (!(got instanceof Map<?, ?> g)) {
                        diffs.add(path + ": read a " + got.getClass().getName() + ", not a map");
                        return;
                    }
                    Map<String, Object> byKey = new HashMap<>();
                    g.forEach((k, v) -> byKey.put(k.toString(), v));
                    if (!byKey.keySet().equals(w.keySet())) {
                        diffs.add(path + ": keys sent " + w.keySet() + ", read " + byKey.keySet());
                        return;
                    }
                    w.forEach((k, v) -> compare(node.inner, v, byKey.get(k), path + "/" + k, diffs));
                    return;
                }
                case LIST -> {
                    List<Object> w = (List<Object>) want;
                    if (!(got instanceof List<?> g) || g.size() != w.size()) {
                        diffs.add(path + ": sent " + render(want) + ", read " + show(got));
                        return;
                    }
                    for (int i = 0; i < w.size(); i++) {
                        compare(node.inner, w.get(i), g.get(i), path + "/" + i, diffs);
                    }
                    return;
                }
                default -> throw new IllegalStateException(node.kind.name());
            }
        } catch (RuntimeException e) {
            diffs.add(path + ": cannot compare sent " + render(want) + " with read " + show(got) + ": " + e);
            return;
        }
        if (!equal) {
            diffs.add(path + " (" + node.kind + "): sent " + render(want) + " = " + expected + ", read " + show(got));
        }
    }

    static Instant instant(String rfc3339) {
        String s = rfc3339.toUpperCase(Locale.ROOT);
        if (s.length() > 10 && s.charAt(10) == ' ') {
            s = s.substring(0, 10) + 'T' + s.substring(11);
        }
        return OffsetDateTime.parse(s).toInstant();
    }

    private static byte[] bytes(ByteBuffer b) {
        ByteBuffer d = b.duplicate();
        byte[] out = new byte[d.remaining()];
        d.get(out);
        return out;
    }

    private static String show(Object got) {
        if (got == null) {
            return "null";
        }
        if (got instanceof ByteBuffer b) {
            return "bytes " + java.util.HexFormat.of().formatHex(bytes(b));
        }
        if (got instanceof CharSequence s) {
            return "\"" + escapeForDisplay(s.toString()) + "\"";
        }
        return got + " (" + got.getClass().getSimpleName() + ")";
    }

    static String escapeForDisplay(String s) {
        StringBuilder sb = new StringBuilder();
        s.codePoints().forEach(cp -> {
            if (cp < 0x20 || cp == 0x7f || (cp >= 0xD800 && cp <= 0xDFFF)) {
                sb.append(String.format(Locale.ROOT, "\\u%04x", cp));
            } else {
                sb.appendCodePoint(cp);
            }
        });
        return sb.toString();
    }
}
