package io.streamtables.convert;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ValueNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Iterator;
import java.util.Map;

/**
 * Numbers no Iceberg column holds, refused before validation: a decimal exponent beyond ±400 (a double ends near
 * 1e308, a decimal(38) at 1e38). Validating one can take hours: {@code multipleOf} divides by it, and
 * {@code 1e99999999} is ten digits of JSON. The parser's node factory sees each number once, in the time of its
 * token, and puts a marker in the tree instead; only a record that holds one is walked to name where.
 */
final class BoundedNumbers {

    static final int MAX_EXPONENT = 400;
    /** 10^400 < 2^1330. */
    private static final int MAX_BITS = 1330;

    static final JsonNodeFactory FACTORY = new JsonNodeFactory() {
        @Override
        public ValueNode numberNode(BigDecimal v) {
            long exponent = (long) v.precision() - v.scale();
            return Math.abs(exponent) > MAX_EXPONENT && v.signum() != 0 ? marker() : super.numberNode(v);
        }

        @Override
        public ValueNode numberNode(BigInteger v) {
            return v.bitLength() > MAX_BITS ? marker() : super.numberNode(v);
        }
    };

    /** Set by the factory of this thread's parse when it met such a number. */
    private static final ThreadLocal<boolean[]> MET = ThreadLocal.withInitial(() -> new boolean[1]);

    /** Stands for a number out of range; its value is never read. */
    private static final class OutOfRange extends DecimalNode {
        OutOfRange() {
            super(BigDecimal.ZERO);
        }
    }

    private BoundedNumbers() {
    }

    private static ValueNode marker() {
        MET.get()[0] = true;
        return new OutOfRange();
    }

    /**
     * The JSON pointer of the first number out of range at a place the schema declares, or null. Names the schema
     * does not declare are written {@code *}; a number under a name it does not know at all has no column, and is
     * left alone as the validator and the converter leave it.
     */
    static String outOfRange(JsonNode document, JsonNode schema) {
        boolean[] met = MET.get();
        if (!met[0]) {
            return null;
        }
        met[0] = false;
        return find(document, schema, "");
    }

    private static String find(JsonNode node, JsonNode schema, String pointer) {
        if (schema == null || !schema.isObject()) {
            return null;
        }
        if (node instanceof OutOfRange) {
            return pointer;
        }
        if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                String found = find(node.get(i), schema.get("items"), pointer + "/" + i);
                if (found != null) {
                    return found;
                }
            }
        } else if (node.isObject()) {
            JsonNode properties = schema.path("properties");
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> e = it.next();
                boolean declared = properties.has(e.getKey());
                String found = find(e.getValue(), declared ? properties.get(e.getKey()) : schema.get("additionalProperties"),
                        pointer + "/" + (declared ? e.getKey().replace("~", "~0").replace("/", "~1") : "*"));
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }
}
