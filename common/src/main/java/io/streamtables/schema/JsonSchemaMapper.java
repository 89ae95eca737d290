package io.streamtables.schema;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * JSON Schema → Iceberg schema (SPEC table T, T0–T2): the one place where the mapping lives.
 */
public final class JsonSchemaMapper {

    private static final BigDecimal TWO_POW_31 = BigDecimal.valueOf(1L << 31);

    private final AtomicInteger ids = new AtomicInteger();
    private final boolean draft4;

    private JsonSchemaMapper(boolean draft4) {
        this.draft4 = draft4;
    }

    /** Maps a top-level object schema to an Iceberg schema; refuses what the mapping cannot take. */
    public static Schema toIceberg(JsonNode schema) {
        JsonSchemaMapper mapper = new JsonSchemaMapper(SchemaDialect.of(schema) == SchemaDialect.DRAFT_4);
        Type type = mapper.map(schema, "", true);
        if (!type.isStructType()) {
            throw new UnsupportedSchemaException("", "the top level must be an object with properties");
        }
        return new Schema(type.asStructType().fields());
    }

    private Type map(JsonNode node, String pointer, boolean top) {
        if (!node.isObject()) {
            throw new UnsupportedSchemaException(pointer, "expected a schema object");
        }
        for (String keyword : List.of("oneOf", "anyOf", "allOf", "$ref", "not")) {
            if (node.has(keyword)) {
                throw new UnsupportedSchemaException(pointer, "'" + keyword + "' cannot be mapped to one Iceberg type");
            }
        }
        if (node.has("enum")) {
            return Types.StringType.get(); // SPEC T, whatever its type: the values as JSON text (enumColumns)
        }
        String type = singleType(node, pointer);
        return switch (type) {
            case "string" -> stringType(node);
            case "integer" -> integerType(node);
            case "number" -> numberType(node, pointer);
            case "boolean" -> Types.BooleanType.get();
            case "object" -> objectType(node, pointer);
            case "array" -> arrayType(node, pointer);
            default -> throw new UnsupportedSchemaException(pointer, "type '" + type + "' has no Iceberg column type");
        };
    }

    /** The one non-null type; {@code ["T", "null"]} is T (T2). */
    private static String singleType(JsonNode node, String pointer) {
        JsonNode t = node.get("type");
        if (t == null) {
            throw new UnsupportedSchemaException(pointer, "no 'type': every field needs one");
        }
        if (t.isTextual()) {
            return t.asText();
        }
        List<String> types = new ArrayList<>();
        t.forEach(e -> {
            if (!"null".equals(e.asText())) {
                types.add(e.asText());
            }
        });
        if (types.size() != 1) {
            throw new UnsupportedSchemaException(pointer, "a union type must be one type and 'null', found " + t);
        }
        return types.get(0);
    }

    /**
     * The ids of the string columns of {@code iceberg} that hold an {@code enum}'s values, each as its JSON text (a
     * string as itself). Found by name at every level: {@code iceberg} may be a table's, whose ids are its own.
     */
    public static Set<Integer> enumColumns(Schema iceberg, JsonNode schema) {
        Set<Integer> ids = new HashSet<>();
        enumColumns(iceberg.asStruct(), schema, ids);
        return ids;
    }

    private static void enumColumns(Type type, JsonNode node, Set<Integer> ids) {
        if (type.isStructType()) {
            for (Types.NestedField field : type.asStructType().fields()) {
                enumColumn(field.fieldId(), field.type(), node.path("properties").get(field.name()), ids);
            }
        } else if (type.isListType()) {
            enumColumn(type.asListType().elementId(), type.asListType().elementType(), node.get("items"), ids);
        } else if (type.isMapType()) {
            enumColumn(type.asMapType().valueId(), type.asMapType().valueType(), node.get("additionalProperties"), ids);
        }
    }

    private static void enumColumn(int id, Type type, JsonNode node, Set<Integer> ids) {
        if (node == null) {
            return; // a column of the table that the schema does not have
        }
        if (node.has("enum")) {
            ids.add(id);
        } else {
            enumColumns(type, node, ids);
        }
    }

    /**
     * True when null is a valid value (T2): the type list has "null", or there is no type and the enum lists null;
     * such a field is optional even if listed as required.
     */
    static boolean admitsNull(JsonNode node) {
        JsonNode t = node.get("type");
        if (t != null && t.isArray()) {
            for (JsonNode e : t) {
                if ("null".equals(e.asText())) {
                    return true;
                }
            }
        }
        if (t == null && node.path("enum").isArray()) {
            for (JsonNode value : node.get("enum")) {
                if (value.isNull()) {
                    return true;
                }
            }
        }
        return false;
    }

    private static Type stringType(JsonNode node) {
        String encoding = node.path("encoding").asText(node.path("contentEncoding").asText(""));
        if (encoding.equals("byte") || encoding.equals("base64")) {
            return Types.BinaryType.get();
        }
        return switch (node.path("format").asText("")) {
            case "date-time" -> Types.TimestampType.withZone();
            case "date" -> Types.DateType.get();
            case "time" -> Types.TimeType.get();
            case "uuid" -> Types.UUIDType.get();
            default -> Types.StringType.get();
        };
    }

    /** T0: int when no integer above 2^31 − 1 is admitted, else long. */
    private Type integerType(JsonNode node) {
        BigDecimal max = node.has("maximum") ? node.get("maximum").decimalValue() : null;
        JsonNode exclusive = node.get("exclusiveMaximum");
        boolean fitsInt = false;
        if (max != null) {
            // draft-04: exclusiveMaximum is a boolean modifier of maximum
            boolean excl = (draft4 || (exclusive != null && exclusive.isBoolean())) && exclusive != null
                    && exclusive.asBoolean();
            fitsInt = excl ? max.compareTo(TWO_POW_31) <= 0 : max.compareTo(TWO_POW_31) < 0;
        }
        if (exclusive != null && exclusive.isNumber()) {
            fitsInt |= exclusive.decimalValue().compareTo(TWO_POW_31) <= 0;
        }
        return fitsInt ? Types.IntegerType.get() : Types.LongType.get();
    }

    private static Type numberType(JsonNode node, String pointer) {
        JsonNode multipleOf = node.get("multipleOf");
        if (multipleOf == null) {
            return Types.DoubleType.get();
        }
        BigDecimal step = multipleOf.decimalValue().stripTrailingZeros();
        if (step.signum() <= 0) {
            throw new UnsupportedSchemaException(pointer + "/multipleOf", "must be positive");
        }
        int scale = Math.max(0, step.scale());
        if (scale > 38) {
            throw new UnsupportedSchemaException(pointer + "/multipleOf", "needs a scale above 38");
        }
        return Types.DecimalType.of(38, scale);
    }

    private Type objectType(JsonNode node, String pointer) {
        JsonNode properties = node.get("properties");
        JsonNode additional = node.get("additionalProperties");
        if (properties != null && properties.size() > 0) {
            Set<String> required = new HashSet<>();
            node.path("required").forEach(r -> required.add(r.asText()));
            List<Types.NestedField> fields = new ArrayList<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = properties.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> e = it.next();
                String child = pointer + "/properties/" + JsonPointers.token(e.getKey());
                int id = ids.incrementAndGet();
                Type type = map(e.getValue(), child, false);
                boolean isRequired = required.contains(e.getKey()) && !admitsNull(e.getValue());
                fields.add(isRequired
                        ? Types.NestedField.required(id, e.getKey(), type)
                        : Types.NestedField.optional(id, e.getKey(), type));
            }
            return Types.StructType.of(fields);
        }
        if (additional != null && additional.isObject()) {
            int keyId = ids.incrementAndGet();
            int valueId = ids.incrementAndGet();
            Type value = map(additional, pointer + "/additionalProperties", false);
            return Types.MapType.ofOptional(keyId, valueId, Types.StringType.get(), value);
        }
        throw new UnsupportedSchemaException(pointer, "an object needs 'properties' or an 'additionalProperties' schema");
    }

    private Type arrayType(JsonNode node, String pointer) {
        JsonNode items = node.get("items");
        if (items == null || !items.isObject()) {
            throw new UnsupportedSchemaException(pointer + "/items",
                    "an array needs one 'items' schema (tuple arrays cannot be mapped)");
        }
        int elementId = ids.incrementAndGet();
        return Types.ListType.ofOptional(elementId, map(items, pointer + "/items", false));
    }

}
