package io.streamtables.convert;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.format.Format;
import com.networknt.schema.format.Formats;
import com.networknt.schema.regex.RegularExpression;
import io.streamtables.schema.SchemaDialect;
import io.streamtables.schema.UnsupportedSchemaException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A channel's JSON Schema and its Iceberg schema → {@link CompiledNode}s, keyword by keyword as the reference
 * validator reads them (networknt, draft-07 by default, draft-04 when {@code $schema} names it, formats asserted).
 * A keyword it does not implement, or a form of one it is not sure of, is an {@link UnsupportedKeywordException}:
 * the channel keeps the reference path.
 */
final class SchemaCompiler {

    /** The keyword the compiler does not implement. Names a keyword of the schema, never record content. */
    static final class UnsupportedKeywordException extends RuntimeException {
        private final String keyword;

        UnsupportedKeywordException(String keyword) {
            super("keyword '" + keyword + "' is not compiled", null, false, false);
            this.keyword = keyword;
        }

        String keyword() {
            return keyword;
        }
    }

    /**
     * Keywords no validator reads ("encoding" is the mapper's alone; networknt's draft 7 dialect knows none of the
     * last three), or that only hold schemas for {@code $ref}.
     */
    private static final Set<String> ANNOTATIONS = Set.of("title", "description", "default", "examples", "$comment",
            "definitions", "$defs", "encoding", "readOnly", "writeOnly", "contentMediaType");
    /**
     * The formats the type mapping reads, as the validator's own implementations (none reads its context); date-time's
     * asked only about a text that is not surely one ({@link Rfc3339#formatAskedLast}).
     */
    private static final Map<String, Format> FORMATS = formats("date-time", "date", "time", "uuid");

    private final JsonNode root;
    private final boolean draft4;
    /** Nodes compiled without a column, by schema object: a {@code $ref} may come back to one. */
    private final Map<JsonNode, CompiledNode> checkOnly = new IdentityHashMap<>();

    SchemaCompiler(JsonNode root) {
        this.root = root;
        this.draft4 = SchemaDialect.of(root) == SchemaDialect.DRAFT_4; // ChannelSchema refused any other
    }

    CompiledNode compileRoot(Schema iceberg) {
        return compile(root, iceberg.asStruct(), true);
    }

    /** @param type the column's type, or null when the value is only validated */
    private CompiledNode compile(JsonNode schema, Type type, boolean top) {
        if (!schema.isObject()) {
            throw new UnsupportedKeywordException(schema.isBoolean() ? "boolean schema" : "schema");
        }
        if (schema.has("$ref")) {
            if (type != null) {
                throw new UnsupportedKeywordException("$ref"); // the mapper takes none; a column's node never has one
            }
            schema = resolve(schema);
        }
        CompiledNode node = type == null ? checkOnly.get(schema) : null;
        if (node != null) {
            return node;
        }
        node = new CompiledNode();
        if (type == null) {
            checkOnly.put(schema, node);
        }
        node.integralFloats = !draft4; // draft 6 on: 1.0 is an integer
        for (Iterator<String> it = schema.fieldNames(); it.hasNext();) {
            String keyword = it.next();
            keyword(node, schema, keyword, top);
        }
        column(node, schema, type);
        return node;
    }

    private void keyword(CompiledNode node, JsonNode schema, String keyword, boolean top) {
        JsonNode value = schema.get(keyword);
        switch (keyword) {
            case "type" -> node.types = types(value);
            case "enum" -> node.enumValues = constants(keyword, value.isArray() ? value : null);
            case "const" -> {
                if (!draft4) { // draft-04 has no const: its validator ignores the word
                    node.constValue = constants(keyword, Collections.singletonList(value));
                }
            }
            case "minimum" -> numbers(node, schema).lower(bound(keyword, value), draft4Exclusive(schema, "exclusiveMinimum"));
            case "maximum" -> numbers(node, schema).upper(bound(keyword, value), draft4Exclusive(schema, "exclusiveMaximum"));
            case "exclusiveMinimum", "exclusiveMaximum" -> {
                // draft-04: a boolean modifier that minimum/maximum read; draft-07: a bound of its own
                if (!draft4) {
                    BigDecimal bound = bound(keyword, value);
                    if (keyword.equals("exclusiveMinimum")) {
                        numbers(node, schema).lower(bound, true);
                    } else {
                        numbers(node, schema).upper(bound, true);
                    }
                }
            }
            case "multipleOf" -> multipleOf(numbers(node, schema), value);
            case "minLength" -> strings(node).minLength = count(keyword, value);
            case "maxLength" -> strings(node).maxLength = count(keyword, value);
            case "pattern" -> strings(node).pattern = pattern(value);
            case "format" -> {
                Format format = value.isTextual() ? FORMATS.get(value.textValue()) : null;
                if (format == null) {
                    throw new UnsupportedKeywordException("format");
                }
                strings(node).format = format;
            }
            case "contentEncoding" -> {
                if (!value.isTextual()) {
                    throw new UnsupportedKeywordException(keyword);
                }
                if (!draft4 && value.textValue().equals("base64")) { // the validator checks base64 only, draft 7 on
                    strings(node).base64 = true;
                }
            }
            case "minItems" -> arrays(node).minItems = count(keyword, value);
            case "maxItems" -> arrays(node).maxItems = count(keyword, value);
            case "properties", "required", "additionalProperties", "items" -> {
                // read with the column's type, in column()
            }
            case "$schema" -> {
                if (!top) {
                    throw new UnsupportedKeywordException(keyword);
                }
            }
            default -> {
                // the base of the document's references: only at the top, where it names this document
                boolean id = keyword.equals(draft4 ? "id" : "$id");
                if (!(id && top) && !ANNOTATIONS.contains(keyword)) {
                    throw new UnsupportedKeywordException(keyword);
                }
            }
        }
    }

    /** The object and array keywords, and the column the value converts to. */
    private void column(CompiledNode node, JsonNode schema, Type type) {
        JsonNode items = schema.get("items");
        Type element = type != null && type.isListType() ? type.asListType().elementType() : null;
        if (items != null) {
            if (!items.isObject()) {
                throw new UnsupportedKeywordException("items"); // tuples, and boolean schemas
            }
            arrays(node).items = compile(items, element, false);
        }
        if (schema.has("properties") || schema.has("required") || schema.has("additionalProperties")) {
            node.object = object(schema, type);
        }
        if (type == null) {
            return;
        }
        switch (type.typeId()) {
            case STRING -> node.column = CompiledNode.Column.STRING;
            case BINARY -> node.column = CompiledNode.Column.BINARY;
            case TIMESTAMP -> node.column = CompiledNode.Column.TIMESTAMP;
            case DATE -> node.column = CompiledNode.Column.DATE;
            case TIME -> node.column = CompiledNode.Column.TIME;
            case UUID -> node.column = CompiledNode.Column.UUID;
            case INTEGER -> node.column = CompiledNode.Column.INTEGER;
            case LONG -> node.column = CompiledNode.Column.LONG;
            case DOUBLE -> node.column = CompiledNode.Column.DOUBLE;
            case BOOLEAN -> node.column = CompiledNode.Column.BOOLEAN;
            case DECIMAL -> {
                node.column = CompiledNode.Column.DECIMAL;
                node.decimal = (Types.DecimalType) type;
            }
            case STRUCT -> node.column = CompiledNode.Column.STRUCT;
            case MAP -> node.column = CompiledNode.Column.MAP;
            case LIST -> node.column = CompiledNode.Column.LIST;
            default -> throw new UnsupportedKeywordException("type");
        }
        boolean struct = node.object != null && node.object.empty != null;
        boolean map = node.object != null && node.object.additional != null;
        boolean list = node.array != null && node.array.items != null;
        if (type.isStructType() && !struct || type.isMapType() && !map || type.isListType() && !list) {
            throw new UnsupportedKeywordException("type"); // not the shape the mapper read
        }
    }

    private CompiledNode.ObjectRule object(JsonNode schema, Type type) {
        CompiledNode.ObjectRule rule = new CompiledNode.ObjectRule();
        Types.StructType struct = type != null && type.isStructType() ? type.asStructType() : null;
        Map<String, Integer> slots = new HashMap<>();
        List<CompiledNode> properties = new ArrayList<>();
        List<Integer> positions = new ArrayList<>();
        JsonNode declared = schema.path("properties");
        if (!declared.isObject() && !declared.isMissingNode()) {
            throw new UnsupportedKeywordException("properties");
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = declared.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> e = it.next();
            Types.NestedField field = struct == null ? null : struct.field(e.getKey());
            if (struct != null && field == null) {
                throw new UnsupportedKeywordException("properties");
            }
            slots.put(e.getKey(), properties.size());
            properties.add(compile(e.getValue(), field == null ? null : field.type(), false));
            positions.add(field == null ? -1 : struct.fields().indexOf(field));
        }
        JsonNode required = schema.path("required");
        List<Integer> requiredSlots = new ArrayList<>();
        for (JsonNode name : required.isArray() ? required : List.<JsonNode>of()) {
            if (!name.isTextual()) {
                throw new UnsupportedKeywordException("required");
            }
            // a required name that is not a property is checked like one, without a node
            requiredSlots.add(slots.computeIfAbsent(name.textValue(), k -> slots.size()));
        }
        if (!required.isArray() && !required.isMissingNode()) {
            throw new UnsupportedKeywordException("required");
        }
        JsonNode additional = schema.get("additionalProperties");
        if (additional != null && additional.isObject()) {
            rule.additional = compile(additional,
                    type != null && type.isMapType() ? type.asMapType().valueType() : null, false);
        } else if (additional != null && additional.isBoolean()) {
            rule.forbidAdditional = !additional.booleanValue();
        } else if (additional != null) {
            throw new UnsupportedKeywordException("additionalProperties");
        }
        rule.slots = slots;
        rule.slotCount = slots.size();
        rule.properties = properties.toArray(new CompiledNode[0]);
        rule.positions = positions.stream().mapToInt(Integer::intValue).toArray();
        rule.required = requiredSlots.stream().mapToInt(Integer::intValue).distinct().toArray();
        if (struct != null) {
            rule.empty = GenericRecord.create(struct);
            List<Types.NestedField> fields = struct.fields();
            rule.requiredColumns = IntStream.range(0, fields.size())
                    .filter(i -> fields.get(i).isRequired()).toArray();
        }
        return rule;
    }

    /**
     * The schema a {@code $ref} names in this document. The validator ignores a reference's siblings; only
     * annotations are taken beside one here, and a cycle of references alone (on which it overflows) is refused.
     */
    private JsonNode resolve(JsonNode schema) {
        Set<JsonNode> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        while (schema.isObject() && schema.has("$ref")) {
            if (!seen.add(schema)) {
                throw new UnsupportedKeywordException("$ref");
            }
            for (Iterator<String> it = schema.fieldNames(); it.hasNext();) {
                String keyword = it.next();
                if (!keyword.equals("$ref") && !ANNOTATIONS.contains(keyword)) {
                    throw new UnsupportedKeywordException("$ref");
                }
            }
            JsonNode ref = schema.get("$ref");
            if (!ref.isTextual() || !ref.textValue().startsWith("#") || ref.textValue().contains("%")) {
                throw new UnsupportedKeywordException("$ref"); // another document, or an escaped pointer
            }
            try {
                schema = root.at(ref.textValue().substring(1));
            } catch (IllegalArgumentException e) {
                throw new UnsupportedKeywordException("$ref"); // an anchor, not a pointer
            }
            if (schema.isMissingNode()) {
                throw new UnsupportedKeywordException("$ref");
            }
        }
        return schema;
    }

    private static int types(JsonNode value) {
        if (value.isTextual()) {
            return type(value.textValue());
        }
        if (!value.isArray() || value.isEmpty()) {
            throw new UnsupportedKeywordException("type");
        }
        int types = 0;
        for (JsonNode t : value) {
            if (!t.isTextual()) {
                throw new UnsupportedKeywordException("type");
            }
            types |= type(t.textValue());
        }
        return types;
    }

    /** "number" admits integers; "integer" admits floats with no fractional part from draft 6 on (see {@link CompiledNode}). */
    private static int type(String name) {
        return switch (name) {
            case "null" -> CompiledNode.NULL;
            case "boolean" -> CompiledNode.BOOLEAN;
            case "object" -> CompiledNode.OBJECT;
            case "array" -> CompiledNode.ARRAY;
            case "string" -> CompiledNode.STRING;
            case "integer" -> CompiledNode.INTEGER;
            case "number" -> CompiledNode.NUMBER;
            case "any" -> CompiledNode.ANY;
            default -> throw new UnsupportedKeywordException("type");
        };
    }

    private static Constants constants(String keyword, Iterable<JsonNode> values) {
        Constants constants = values == null ? null : Constants.of(values);
        if (constants == null) {
            throw new UnsupportedKeywordException(keyword);
        }
        return constants;
    }

    /** A bound as the validator reads it: the number's text, exactly; a double out of range is not taken. */
    private static BigDecimal bound(String keyword, JsonNode value) {
        if (!value.isNumber() || value.isFloatingPointNumber() && !value.isBigDecimal() && !Double.isFinite(value.doubleValue())) {
            throw new UnsupportedKeywordException(keyword);
        }
        return new BigDecimal(value.asText());
    }

    /** Draft-04's boolean exclusiveMinimum/Maximum beside minimum/maximum; in draft 7 the reference cannot load one. */
    private boolean draft4Exclusive(JsonNode schema, String keyword) {
        JsonNode exclusive = schema.get(keyword);
        return draft4 && exclusive != null && exclusive.isBoolean() && exclusive.booleanValue();
    }

    /** The divisor as the validator computes it: a double's shortest decimal form, or the exact BigDecimal. */
    private static void multipleOf(NumberRule numbers, JsonNode value) {
        if (!value.isNumber() || !Double.isFinite(value.doubleValue()) && !value.isBigDecimal()) {
            throw new UnsupportedKeywordException("multipleOf");
        }
        if (value.doubleValue() == 0) {
            return; // the validator checks nothing then
        }
        numbers.multipleOf(value.isBigDecimal() ? value.decimalValue().stripTrailingZeros()
                : BigDecimal.valueOf(value.doubleValue()).stripTrailingZeros());
    }

    private static int count(String keyword, JsonNode value) {
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            throw new UnsupportedKeywordException(keyword);
        }
        return value.intValue();
    }

    private static RegularExpression pattern(JsonNode value) {
        if (!value.isTextual()) {
            throw new UnsupportedKeywordException("pattern");
        }
        try {
            return LinearRegularExpressions.INSTANCE.getRegularExpression(value.textValue());
        } catch (UnsupportedSchemaException e) {
            throw new UnsupportedKeywordException("pattern");
        }
    }

    private static NumberRule numbers(CompiledNode node, JsonNode schema) {
        if (node.numbers == null) {
            node.numbers = new NumberRule("integer".equals(schema.path("type").textValue()));
        }
        return node.numbers;
    }

    private static StringRule strings(CompiledNode node) {
        if (node.strings == null) {
            node.strings = new StringRule();
        }
        return node.strings;
    }

    private static CompiledNode.ArrayRule arrays(CompiledNode node) {
        if (node.array == null) {
            node.array = new CompiledNode.ArrayRule();
        }
        return node.array;
    }

    private static Map<String, Format> formats(String... names) {
        Map<String, Format> formats = new HashMap<>();
        for (Format f : Formats.DEFAULT) {
            for (String name : names) {
                if (f.getName().equals(name)) {
                    formats.put(name, name.equals("date-time") ? Rfc3339.formatAskedLast(f) : f);
                }
            }
        }
        return Map.copyOf(formats);
    }
}
