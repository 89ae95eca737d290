package io.streamtables.convert;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Types;

/**
 * One schema node, compiled by {@link SchemaCompiler}: what it admits of each JSON type and, when the value has a
 * column, the value it writes, converted as {@link RowConverter} converts it (an {@code enum}'s number or boolean goes
 * into its string column as JSON text). A node whose value has no column (an unknown member validated by an
 * {@code additionalProperties} schema) only checks. Every doubt is {@link CompiledDecoder.NotSure}. The compiler
 * fills the fields once; a {@code $ref} cycle makes that a graph.
 */
final class CompiledNode {

    static final int NULL = 1;
    static final int BOOLEAN = 2;
    static final int OBJECT = 4;
    static final int ARRAY = 8;
    static final int STRING = 16;
    static final int INTEGER = 32;
    static final int NUMBER = 64;
    static final int ANY = 127;

    /** The column type of the value, as {@link RowConverter} converts to it; NONE when it is validated only. */
    enum Column { NONE, STRING, BINARY, TIMESTAMP, DATE, TIME, UUID, INTEGER, LONG, DOUBLE, DECIMAL, BOOLEAN, STRUCT, LIST, MAP }

    Column column = Column.NONE;
    Types.DecimalType decimal;
    /** The JSON types {@code type} admits; for {@link #INTEGER}, floats with no fractional part too when set. */
    int types = ANY;
    boolean integralFloats;
    /** {@code enum} and {@code const}, or null. */
    Constants enumValues;
    Constants constValue;
    StringRule strings;
    NumberRule numbers;
    ObjectRule object;
    ArrayRule array;

    /** An object's keywords. Slots: the declared properties first, then names only {@code required} lists. */
    static final class ObjectRule {
        Map<String, Integer> slots;
        CompiledNode[] properties;
        /** The position of each property in the row (STRUCT). */
        int[] positions;
        /** The slots {@code required} lists. */
        int[] required;
        int slotCount;
        /** Unknown names: skipped when null and allowed, refused when forbidden, else checked by this node. */
        CompiledNode additional;
        boolean forbidAdditional;
        /** STRUCT: an empty row to copy, and the positions of its required columns. */
        GenericRecord empty;
        int[] requiredColumns;
        /** MAP: its keys as the row holds them, and the size of the last map made (racy: a hint). */
        final StringValues.Keys keys = new StringValues.Keys();
        int lastMapSize;
    }

    /** An array's keywords: the element node (null: elements are not checked), and the bounds of its size. */
    static final class ArrayRule {
        CompiledNode items;
        int minItems;
        int maxItems = Integer.MAX_VALUE;
    }

    /** Reads the value that starts at {@code token}, leaving the parser on its last token. */
    Object read(JsonParser p, JsonToken token) throws IOException {
        switch (token) {
            case VALUE_STRING:
                return plainText() ? text(p) : string(p);
            case VALUE_NUMBER_INT:
                return integer(p);
            case VALUE_NUMBER_FLOAT:
                return floating(p);
            case VALUE_TRUE:
            case VALUE_FALSE:
                return bool(token == JsonToken.VALUE_TRUE);
            case VALUE_NULL:
                admit(NULL);
                if (enumValues != null && !enumValues.hasNull() || constValue != null && !constValue.hasNull()) {
                    throw CompiledDecoder.NotSure.INSTANCE;
                }
                return null;
            case START_OBJECT:
                admitStructure(OBJECT);
                return object(p);
            case START_ARRAY:
                admitStructure(ARRAY);
                return array(p);
            default:
                throw CompiledDecoder.NotSure.INSTANCE;
        }
    }

    private void admit(int type) {
        if ((types & type) == 0) {
            throw CompiledDecoder.NotSure.INSTANCE;
        }
    }

    /** Objects and arrays are never among the constants the compiler takes. */
    private void admitStructure(int type) {
        admit(type);
        if (enumValues != null || constValue != null) {
            throw CompiledDecoder.NotSure.INSTANCE;
        }
    }

    /** A string column whose keywords need no String: its value goes from the parser's characters to UTF-8. */
    private boolean plainText() {
        return column == Column.STRING && enumValues == null && constValue == null
                && (strings == null || strings.lengthsOnly());
    }

    private Object text(JsonParser p) throws IOException {
        admit(STRING);
        char[] chars = p.getTextCharacters();
        int from = p.getTextOffset();
        int length = p.getTextLength();
        if (strings != null) {
            strings.checkLength(Character.codePointCount(chars, from, length));
        }
        return sure(StringValues.encode(chars, from, length)); // null: an unpaired surrogate (RefusedValues)
    }

    /** A string that keywords check as a {@code String}; a string column's value is still made from the characters. */
    private Object string(JsonParser p) throws IOException {
        // the characters before the String: asked for after it, Jackson copies them out of it
        char[] chars = p.getTextCharacters();
        int from = p.getTextOffset();
        int length = p.getTextLength();
        String text = p.getText();
        admit(STRING);
        // RefusedValues: an unpaired surrogate is refused, or validated as "" where it is left alone
        if (RefusedValues.unpairedSurrogate(text)
                || enumValues != null && !enumValues.hasString(text) || constValue != null && !constValue.hasString(text)) {
            throw CompiledDecoder.NotSure.INSTANCE;
        }
        if (strings != null) {
            strings.check(text);
        }
        switch (column) {
            case NONE:
                return null;
            case STRING:
                return StringValues.encode(chars, from, length);
            case TIMESTAMP:
                return sure(Rfc3339.utcMicros(text)); // the usual shape; the reference parses any other
            case DATE:
                return LocalDate.parse(text);
            case TIME:
                return time(text);
            case UUID:
                return UUID.fromString(text);
            case BINARY:
                return ByteBuffer.wrap(Base64.getDecoder().decode(text));
            default:
                throw CompiledDecoder.NotSure.INSTANCE;
        }
    }

    /** As {@link RowConverter}: an RFC 3339 full-time at UTC, else a local time. */
    private static LocalTime time(String text) {
        LocalTime time;
        try {
            time = OffsetTime.parse(text.toUpperCase(Locale.ROOT)).withOffsetSameInstant(ZoneOffset.UTC).toLocalTime();
        } catch (DateTimeParseException e) {
            time = LocalTime.parse(text);
        }
        return time.truncatedTo(ChronoUnit.MICROS);
    }

    private Object integer(JsonParser p) throws IOException {
        admit(INTEGER | NUMBER);
        JsonParser.NumberType type = p.getNumberType();
        if (type == JsonParser.NumberType.BIG_INTEGER) {
            return bigInteger(p.getBigIntegerValue());
        }
        long value = p.getLongValue();
        if (enumValues != null || constValue != null) {
            amongConstants(BigDecimal.valueOf(value));
        }
        if (numbers != null) {
            numbers.check(value);
        }
        switch (column) {
            case NONE:
                return null;
            case INTEGER:
                return type == JsonParser.NumberType.INT ? Integer.valueOf((int) value) : sure(null);
            case LONG:
                return value;
            case DOUBLE:
                return (double) value;
            case DECIMAL:
                return decimal(BigDecimal.valueOf(value));
            case STRING:
                return StringValues.ofNumber(BigDecimal.valueOf(value)); // an enum's column: only its values get here
            default:
                throw CompiledDecoder.NotSure.INSTANCE;
        }
    }

    /** An integer beyond the long range: no int or long column holds one. */
    private Object bigInteger(BigInteger value) {
        // RefusedValues refuses more than 1330 bits; the few bits below are left to it too
        if (value.bitLength() > 1300) {
            throw CompiledDecoder.NotSure.INSTANCE;
        }
        BigDecimal exact = new BigDecimal(value);
        amongConstants(exact);
        if (numbers != null) {
            numbers.check(value);
        }
        switch (column) {
            case NONE:
                return null;
            case DOUBLE:
                double d = value.doubleValue();
                return Double.isInfinite(d) ? sure(null) : d;
            case DECIMAL:
                return decimal(exact);
            case STRING:
                return StringValues.ofNumber(exact);
            default:
                throw CompiledDecoder.NotSure.INSTANCE;
        }
    }

    private Object floating(JsonParser p) throws IOException {
        if (column == Column.DOUBLE && enumValues == null && constValue == null && numbers == null) {
            admit(NUMBER);
            return plainDouble(p);
        }
        // the reference reads floats as BigDecimal (USE_BIG_DECIMAL_FOR_FLOATS): so does every check here
        BigDecimal value = p.getDecimalValue();
        if (value.signum() != 0 && Math.abs((long) value.precision() - value.scale()) > RefusedValues.MAX_EXPONENT) {
            throw CompiledDecoder.NotSure.INSTANCE;
        }
        if ((types & NUMBER) == 0 && !((types & INTEGER) != 0 && integralFloats && integral(value))) {
            throw CompiledDecoder.NotSure.INSTANCE;
        }
        amongConstants(value);
        if (numbers != null) {
            numbers.check(value);
        }
        switch (column) {
            case NONE:
                return null;
            case INTEGER:
                return exactInteger(value).intValueExact();
            case LONG:
                return exactInteger(value).longValueExact();
            case DOUBLE:
                double d = value.doubleValue();
                return Double.isInfinite(d) ? sure(null) : d;
            case DECIMAL:
                return decimal(value);
            case STRING:
                return StringValues.ofNumber(value);
            default:
                throw CompiledDecoder.NotSure.INSTANCE;
        }
    }

    /**
     * A double column with no numeric keyword, without a BigDecimal: Jackson's double and BigDecimal's are both the
     * correctly rounded value. Only a value far from the range a decimal exponent of ±400 could leave is taken.
     */
    private static Object plainDouble(JsonParser p) throws IOException {
        double d = p.getDoubleValue();
        double magnitude = Math.abs(d);
        if (magnitude >= 1e-300 && magnitude <= 1e300) {
            return d;
        }
        if (d == 0 && zeroDigits(p)) {
            return 0.0d; // -0.0 is a BigDecimal zero to the reference: +0.0
        }
        throw CompiledDecoder.NotSure.INSTANCE;
    }

    /** True when every digit of the number's significand is 0. */
    private static boolean zeroDigits(JsonParser p) throws IOException {
        char[] chars = p.getTextCharacters();
        for (int i = p.getTextOffset(), end = i + p.getTextLength(); i < end; i++) {
            char c = chars[i];
            if (c == 'e' || c == 'E') {
                break;
            }
            if (c >= '1' && c <= '9') {
                return false;
            }
        }
        return true;
    }

    /** {@code enum} and {@code const} of a number: compared by value. */
    private void amongConstants(BigDecimal value) {
        if (enumValues != null && !enumValues.hasNumber(value) || constValue != null && !constValue.hasNumber(value)) {
            throw CompiledDecoder.NotSure.INSTANCE;
        }
    }

    /** Jackson's DecimalNode.canConvertToExactIntegral, which the validator asks of "integer" (draft 6 on). */
    private static boolean integral(BigDecimal value) {
        return value.signum() == 0 || value.scale() <= 0 || value.stripTrailingZeros().scale() <= 0;
    }

    /** As {@link RowConverter}: a number with no fractional part and at most 19 digits. */
    private static BigInteger exactInteger(BigDecimal value) {
        BigDecimal exact = value.stripTrailingZeros();
        if (exact.scale() > 0 || exact.precision() - exact.scale() > 19) {
            throw CompiledDecoder.NotSure.INSTANCE;
        }
        return exact.toBigIntegerExact();
    }

    /** As {@link RowConverter}: the value at the column's scale, refused when it would round or overflow. */
    private BigDecimal decimal(BigDecimal value) {
        BigDecimal exact = value.stripTrailingZeros();
        if (exact.scale() > decimal.scale()
                || exact.signum() != 0 && exact.precision() - exact.scale() > decimal.precision() - decimal.scale()) {
            throw CompiledDecoder.NotSure.INSTANCE;
        }
        BigDecimal scaled = exact.setScale(decimal.scale());
        return scaled.precision() > decimal.precision() ? sure(null) : scaled;
    }

    private Object bool(boolean value) {
        admit(BOOLEAN);
        if (enumValues != null && !enumValues.hasBoolean(value) || constValue != null && !constValue.hasBoolean(value)) {
            throw CompiledDecoder.NotSure.INSTANCE;
        }
        switch (column) {
            case NONE:
                return null;
            case BOOLEAN:
                return value;
            case STRING:
                return StringValues.of(Boolean.toString(value));
            default:
                throw CompiledDecoder.NotSure.INSTANCE;
        }
    }

    /**
     * The members, each name once: the parser's duplicate detection puts every name of every object in a HashSet,
     * which costs a fifth of a record's time, so names are checked here against what is at hand (a slot's bit, a
     * map's size), and in a set only for the names no keyword declares.
     */
    private Object object(JsonParser p) throws IOException {
        if (column != Column.NONE && column != Column.STRUCT && column != Column.MAP) {
            throw CompiledDecoder.NotSure.INSTANCE;
        }
        ObjectRule rule = object;
        if (rule == null) {
            skipMembers(p); // no keyword reads the members
            return null;
        }
        GenericRecord row = column == Column.STRUCT ? rule.empty.copy() : null;
        CompactMap.Builder map = column == Column.MAP ? new CompactMap.Builder(rule.lastMapSize) : null;
        long seen = 0;
        long[] seenMany = rule.slotCount > 64 ? new long[(rule.slotCount + 63) >>> 6] : null;
        Set<String> unknown = null;
        String name;
        while ((name = p.nextFieldName()) != null) {
            JsonToken token = p.nextToken();
            Integer found = rule.slots.get(name);
            if (found != null) {
                int slot = found;
                long bit = 1L << slot;
                long word = seenMany == null ? seen : seenMany[slot >>> 6];
                if ((word & bit) != 0) {
                    throw CompiledDecoder.NotSure.INSTANCE; // a name twice
                }
                if (seenMany == null) {
                    seen |= bit;
                } else {
                    seenMany[slot >>> 6] |= bit;
                }
                if (slot < rule.properties.length) {
                    Object value = rule.properties[slot].read(p, token);
                    if (row != null && value != null) {
                        row.set(rule.positions[slot], value);
                    }
                    continue;
                }
            } else if (map == null && !(unknown == null ? unknown = new HashSet<>() : unknown).add(name)) {
                throw CompiledDecoder.NotSure.INSTANCE;
            }
            if (rule.additional != null) {
                Object value = rule.additional.read(p, token);
                if (map != null && !map.add(sure(rule.keys.of(name)), value)) {
                    throw CompiledDecoder.NotSure.INSTANCE; // a name twice
                }
            } else if (rule.forbidAdditional) {
                throw CompiledDecoder.NotSure.INSTANCE;
            } else {
                skip(p, token); // a name no keyword checks: the reference ignores its value, RefusedValues too
            }
        }
        for (int slot : rule.required) {
            if ((seenMany == null ? seen >>> slot : seenMany[slot >>> 6] >>> slot) << 63 == 0) {
                throw CompiledDecoder.NotSure.INSTANCE;
            }
        }
        if (row != null) {
            for (int position : rule.requiredColumns) {
                if (row.get(position) == null) {
                    throw CompiledDecoder.NotSure.INSTANCE;
                }
            }
            return row;
        }
        if (map == null) {
            return null;
        }
        rule.lastMapSize = map.size();
        return map.build();
    }

    /** Skips the value that starts at {@code token}, refusing a name twice in any of its objects as the parser would. */
    private static void skip(JsonParser p, JsonToken token) throws IOException {
        if (token == JsonToken.START_OBJECT) {
            skipMembers(p);
        } else if (token == JsonToken.START_ARRAY) {
            JsonToken element;
            while ((element = p.nextToken()) != JsonToken.END_ARRAY) {
                skip(p, element);
            }
        }
    }

    private static void skipMembers(JsonParser p) throws IOException {
        Set<String> names = null;
        String name;
        while ((name = p.nextFieldName()) != null) {
            if (!(names == null ? names = new HashSet<>() : names).add(name)) {
                throw CompiledDecoder.NotSure.INSTANCE;
            }
            skip(p, p.nextToken());
        }
    }

    private Object array(JsonParser p) throws IOException {
        if (column != Column.NONE && column != Column.LIST) {
            throw CompiledDecoder.NotSure.INSTANCE;
        }
        ArrayRule rule = array;
        List<Object> list = column == Column.LIST ? new ArrayList<>() : null;
        int size = 0;
        JsonToken token;
        while ((token = p.nextToken()) != JsonToken.END_ARRAY) {
            size++;
            if (rule == null || rule.items == null) {
                skip(p, token);
            } else {
                Object value = rule.items.read(p, token);
                if (list != null) {
                    list.add(value);
                }
            }
        }
        if (rule != null && (size < rule.minItems || size > rule.maxItems)) {
            throw CompiledDecoder.NotSure.INSTANCE;
        }
        return list;
    }

    /** The value, or "not sure" when there is none. */
    private static <T> T sure(T value) {
        if (value == null) {
            throw CompiledDecoder.NotSure.INSTANCE;
        }
        return value;
    }
}
