package io.streamtables.convert;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamtables.bus.ErrorCode;
import io.streamtables.schema.JsonPointers;
import io.streamtables.schema.JsonSchemaMapper;
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
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;

/**
 * A validated JSON document → an Iceberg generic row of the mapped schema. Values that do not fit their
 * column fail with {@link ErrorCode#TYPE_CONVERSION_FAILED}: nothing is clamped, wrapped or rounded. An {@code enum}'s
 * column is a string that holds any value the enum admits as its JSON text (SPEC T).
 */
public final class RowConverter {

    private final Schema schema;
    /** The ids of the columns of {@code enum}s ({@link JsonSchemaMapper#enumColumns}). */
    private final Set<Integer> enumColumns;
    // GenericRecord.create looks the struct's field positions up in a shared cache; a copy of an empty record does not
    private final Map<Types.StructType, GenericRecord> emptyRecords = new IdentityHashMap<>();

    /** @param jsonSchema the JSON Schema the rows are validated with, which says the columns of enums */
    public RowConverter(Schema schema, JsonNode jsonSchema) {
        this.schema = schema;
        this.enumColumns = JsonSchemaMapper.enumColumns(schema, jsonSchema);
        TypeUtil.indexById(schema.asStruct()).values().stream().map(Types.NestedField::type).filter(Type::isStructType)
                .forEach(t -> emptyRecords.put(t.asStructType(), GenericRecord.create(t.asStructType())));
        emptyRecords.put(schema.asStruct(), GenericRecord.create(schema.asStruct()));
    }

    public Record convert(JsonNode document) {
        return struct(document, schema.asStruct(), Pointer.ROOT);
    }

    private Record struct(JsonNode node, Types.StructType type, Pointer pointer) {
        if (!node.isObject()) {
            throw mismatch(pointer, "an object");
        }
        GenericRecord empty = emptyRecords.get(type);
        GenericRecord record = empty != null ? empty.copy() : GenericRecord.create(type);
        List<Types.NestedField> fields = type.fields();
        for (int i = 0; i < fields.size(); i++) {
            Types.NestedField field = fields.get(i);
            JsonNode value = node.get(field.name());
            if (value == null || value.isNull()) {
                if (field.isRequired()) {
                    Pointer child = pointer.child(field.name());
                    throw new ConversionException(ErrorCode.TYPE_CONVERSION_FAILED, child.toString(),
                            "required column " + child + " has no value");
                }
                continue;
            }
            record.set(i, value(value, field.type(), field.fieldId(), pointer, field.name()));
        }
        return record;
    }

    /**
     * The value of the member {@code name} (a field name, an array index or {@code *}) of {@code parent}; its
     * pointer is built only when an error names it or a nested value needs it as a parent. {@code id} is the column's.
     */
    private Object value(JsonNode node, Type type, int id, Pointer parent, Object name) {
        switch (type.typeId()) {
            case STRING:
                if (node.isTextual()) {
                    return StringValues.of(node.textValue());
                }
                break;
            case INTEGER:
                if (node.isInt()) {
                    return node.intValue();
                }
                break;
            case LONG:
                if (node.isIntegralNumber() && node.canConvertToLong()) {
                    return node.longValue();
                }
                break;
            case DOUBLE:
                if (node.isNumber()) {
                    double d = node.doubleValue();
                    if (!Double.isInfinite(d)) {
                        return d;
                    }
                }
                break;
            case BOOLEAN:
                if (node.isBoolean()) {
                    return node.booleanValue();
                }
                break;
            case TIMESTAMP:
                OffsetDateTime timestamp = node.isTextual() ? Rfc3339.utcMicros(node.textValue()) : null;
                if (timestamp != null) {
                    return timestamp;
                }
                break;
            default:
                break;
        }
        return value(node, type, id, parent.child(name)); // the other types, an enum's other values, every failure
    }

    private Object value(JsonNode node, Type type, int id, Pointer pointer) {
        switch (type.typeId()) {
            case STRING:
                if (!node.isTextual() && enumColumns.contains(id)) {
                    return node.isNumber() ? StringValues.ofNumber(node.decimalValue())
                            : StringValues.of(node.toString());
                }
                return StringValues.of(text(node, pointer));
            case BOOLEAN:
                if (!node.isBoolean()) {
                    throw mismatch(pointer, "a boolean");
                }
                return node.booleanValue();
            case INTEGER:
                if (node.isInt()) {
                    return node.intValue();
                }
                try {
                    return integral(node, pointer).intValueExact();
                } catch (ArithmeticException e) {
                    throw outOfRange(pointer, "int");
                }
            case LONG:
                if (node.isIntegralNumber() && node.canConvertToLong()) {
                    return node.longValue();
                }
                try {
                    return integral(node, pointer).longValueExact();
                } catch (ArithmeticException e) {
                    throw outOfRange(pointer, "long");
                }
            case DOUBLE:
                if (!node.isNumber()) {
                    throw mismatch(pointer, "a number");
                }
                double d = node.doubleValue();
                if (Double.isInfinite(d)) {
                    throw outOfRange(pointer, "double");
                }
                return d;
            case DECIMAL:
                return decimal(node, (Types.DecimalType) type, pointer);
            case TIMESTAMP:
                OffsetDateTime timestamp;
                try {
                    timestamp = OffsetDateTime.parse(rfc3339(text(node, pointer))).withOffsetSameInstant(ZoneOffset.UTC);
                } catch (DateTimeParseException e) {
                    throw mismatch(pointer, "an RFC 3339 date-time");
                }
                return timestamp.truncatedTo(ChronoUnit.MICROS); // the column holds microseconds
            case DATE:
                try {
                    return LocalDate.parse(text(node, pointer));
                } catch (DateTimeParseException e) {
                    throw mismatch(pointer, "an RFC 3339 full-date");
                }
            case TIME:
                LocalTime time;
                try {
                    // RFC 3339 full-time carries an offset; the column holds the time of day in UTC
                    time = OffsetTime.parse(text(node, pointer).toUpperCase(Locale.ROOT))
                            .withOffsetSameInstant(ZoneOffset.UTC).toLocalTime();
                } catch (DateTimeParseException e) {
                    try {
                        time = LocalTime.parse(text(node, pointer));
                    } catch (DateTimeParseException again) {
                        throw mismatch(pointer, "an RFC 3339 time");
                    }
                }
                return time.truncatedTo(ChronoUnit.MICROS);
            case UUID:
                try {
                    return UUID.fromString(text(node, pointer));
                } catch (IllegalArgumentException e) {
                    throw mismatch(pointer, "a UUID");
                }
            case BINARY:
                try {
                    return ByteBuffer.wrap(Base64.getDecoder().decode(text(node, pointer)));
                } catch (IllegalArgumentException e) {
                    throw mismatch(pointer, "base64 bytes");
                }
            case STRUCT:
                return struct(node, type.asStructType(), pointer);
            case LIST:
                return list(node, type.asListType(), pointer);
            case MAP:
                return map(node, type.asMapType(), pointer);
            default:
                throw new ConversionException(ErrorCode.TYPE_CONVERSION_FAILED, pointer.toString(),
                        "column type " + type + " is not supported");
        }
    }

    private List<Object> list(JsonNode node, Types.ListType type, Pointer pointer) {
        if (!node.isArray()) {
            throw mismatch(pointer, "an array");
        }
        List<Object> list = new ArrayList<>(node.size());
        for (int i = 0; i < node.size(); i++) {
            JsonNode element = node.get(i);
            list.add(element.isNull() ? null : value(element, type.elementType(), type.elementId(), pointer, i));
        }
        return list;
    }

    private Map<Object, Object> map(JsonNode node, Types.MapType type, Pointer pointer) {
        if (!node.isObject()) {
            throw mismatch(pointer, "an object");
        }
        Map<Object, Object> map = new LinkedHashMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> e = it.next();
            JsonNode v = e.getValue();
            // a map key is record content: it never reaches the DLQ
            if (RefusedValues.unpairedSurrogate(e.getKey())) {
                throw new ConversionException(ErrorCode.DESERIALIZATION_ERROR, pointer.toString(), "a key of map "
                        + pointer + RefusedValues.UNPAIRED_SURROGATE);
            }
            map.put(StringValues.of(e.getKey()),
                    v.isNull() ? null : value(v, type.valueType(), type.valueId(), pointer, "*"));
        }
        return map;
    }

    private static BigDecimal decimal(JsonNode node, Types.DecimalType type, Pointer pointer) {
        if (!node.isNumber()) {
            throw mismatch(pointer, "a number");
        }
        try {
            // Checked before setScale, which would compute 10^n for an exponent n of any size (1e99999999: minutes)
            BigDecimal exact = node.decimalValue().stripTrailingZeros();
            if (exact.scale() > type.scale()) {
                throw new ArithmeticException("more decimal places than the column");
            }
            if (exact.signum() != 0 && exact.precision() - exact.scale() > type.precision() - type.scale()) {
                throw outOfRange(pointer, type.toString());
            }
            BigDecimal value = exact.setScale(type.scale());
            if (value.precision() > type.precision()) {
                throw outOfRange(pointer, type.toString());
            }
            return value;
        } catch (ArithmeticException e) {
            throw new ConversionException(ErrorCode.TYPE_CONVERSION_FAILED, pointer.toString(),
                    pointer + " has more decimal places than " + type + " holds");
        }
    }

    /** An integer, or a number with no fractional part (JSON Schema counts 1.0 as an integer). */
    private static BigInteger integral(JsonNode node, Pointer pointer) {
        if (node.isIntegralNumber()) {
            return node.bigIntegerValue();
        }
        if (!node.isNumber()) {
            throw mismatch(pointer, "an integer");
        }
        // Checked before toBigIntegerExact, which would compute 10^n for an exponent n of any size
        BigDecimal exact = node.decimalValue().stripTrailingZeros();
        if (exact.scale() > 0 || exact.precision() - exact.scale() > 19) {
            throw new ArithmeticException("not an integer of at most 19 digits"); // out of range of a long
        }
        return exact.toBigIntegerExact();
    }

    /** RFC 3339 allows a space between date and time, and lower-case 't' and 'z'. */
    private static String rfc3339(String text) {
        if (text.length() > 10 && text.charAt(10) == 'T' && text.indexOf('z') < 0) {
            return text; // the common case, without a copy
        }
        String upper = text.toUpperCase(Locale.ROOT);
        return upper.length() > 10 && upper.charAt(10) == ' ' ? upper.substring(0, 10) + 'T' + upper.substring(11) : upper;
    }

    private static String text(JsonNode node, Pointer pointer) {
        if (!node.isTextual()) {
            throw mismatch(pointer, "a string");
        }
        return node.textValue();
    }

    private static ConversionException mismatch(Pointer pointer, String expected) {
        return new ConversionException(ErrorCode.TYPE_CONVERSION_FAILED, pointer.toString(), pointer + " must be " + expected);
    }

    private static ConversionException outOfRange(Pointer pointer, String column) {
        return new ConversionException(ErrorCode.TYPE_CONVERSION_FAILED, pointer.toString(),
                pointer + " is not an integer in the range of the " + column + " column");
    }

    /** A JSON pointer built only when an error names it: conversion must not pay for it on every field. */
    private record Pointer(Pointer parent, Object name) {
        static final Pointer ROOT = new Pointer(null, null);

        Pointer child(Object childName) {
            return new Pointer(this, childName);
        }

        @Override
        public String toString() {
            return parent == null ? "" : parent + "/" + JsonPointers.token(name.toString());
        }
    }
}
