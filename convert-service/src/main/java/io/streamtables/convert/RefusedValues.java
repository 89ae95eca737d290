package io.streamtables.convert;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.databind.node.ValueNode;
import io.streamtables.bus.ErrorCode;
import io.streamtables.schema.JsonPointers;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Iterator;
import java.util.Map;

/**
 * Values refused before validation, each in the time of its token: the parser's node factory sees every value once
 * and puts a marker in the tree instead; only a record that holds one is walked, to name where.
 * <ul>
 * <li>A number no Iceberg column holds: a decimal exponent beyond ±400 (a double ends near 1e308, a decimal(38) at
 * 1e38). Validating one can take hours: {@code multipleOf} divides by it, and {@code 1e99999999} is ten digits of
 * JSON.
 * <li>A string with an unpaired UTF-16 surrogate (an escape such as {@code \\uD800} alone): no UTF-8 column holds
 * one, and Parquet would write a {@code ?} in its place. A map's key with one is refused where the row is made
 * ({@link RowConverter}).
 * </ul>
 */
final class RefusedValues {

    static final int MAX_EXPONENT = 400;
    /** The end of the refusal of a value (or a map's key) with an unpaired surrogate, after where it is. */
    static final String UNPAIRED_SURROGATE =
            " holds an unpaired UTF-16 surrogate (an escape from \\uD800 to \\uDFFF alone)";
    /** 10^400 < 2^1330. */
    private static final int MAX_BITS = 1330;

    static final JsonNodeFactory FACTORY = new JsonNodeFactory() {
        @Override
        public ValueNode numberNode(BigDecimal v) {
            long exponent = (long) v.precision() - v.scale();
            return Math.abs(exponent) > MAX_EXPONENT && v.signum() != 0 ? met(new HugeNumber()) : super.numberNode(v);
        }

        @Override
        public ValueNode numberNode(BigInteger v) {
            return v.bitLength() > MAX_BITS ? met(new HugeNumber()) : super.numberNode(v);
        }

        @Override
        public TextNode textNode(String text) {
            return unpairedSurrogate(text) ? met(new LoneSurrogate()) : super.textNode(text);
        }
    };

    /** Set by the factory of this thread's parse when it made a marker. */
    private static final ThreadLocal<boolean[]> MET = ThreadLocal.withInitial(() -> new boolean[1]);

    /** Stands for a number out of range; its value is never read. */
    private static final class HugeNumber extends DecimalNode {
        HugeNumber() {
            super(BigDecimal.ZERO);
        }
    }

    /** Stands for a string with an unpaired surrogate; its value is never read. */
    private static final class LoneSurrogate extends TextNode {
        LoneSurrogate() {
            super("");
        }
    }

    private RefusedValues() {
    }

    private static <T extends ValueNode> T met(T marker) {
        MET.get()[0] = true;
        return marker;
    }

    static boolean unpairedSurrogate(String text) {
        for (int i = 0, n = text.length(); i < n; i++) {
            char c = text.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(text.charAt(i + 1))) {
                    i++;
                } else {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * @throws ConversionException for the first refused value at a place the schema declares. Names the schema does
     *     not declare are written {@code *}; a value under a name it does not know at all has no column, and is left
     *     alone as the validator and the converter leave it.
     */
    static void check(JsonNode document, JsonNode schema) {
        boolean[] met = MET.get();
        if (!met[0]) {
            return;
        }
        met[0] = false;
        find(document, schema, "");
    }

    private static void find(JsonNode node, JsonNode schema, String pointer) {
        if (schema == null || !schema.isObject()) {
            return;
        }
        if (node instanceof HugeNumber) {
            throw new ConversionException(ErrorCode.TYPE_CONVERSION_FAILED, pointer, pointer
                    + " is out of the range of its column (a decimal exponent beyond " + MAX_EXPONENT + ")");
        }
        if (node instanceof LoneSurrogate) {
            throw new ConversionException(ErrorCode.DESERIALIZATION_ERROR, pointer, pointer + UNPAIRED_SURROGATE);
        }
        if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                find(node.get(i), schema.get("items"), pointer + "/" + i);
            }
        } else if (node.isObject()) {
            JsonNode properties = schema.path("properties");
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> e = it.next();
                boolean declared = properties.has(e.getKey());
                find(e.getValue(), declared ? properties.get(e.getKey()) : schema.get("additionalProperties"),
                        pointer + "/" + (declared ? JsonPointers.token(e.getKey()) : "*"));
            }
        }
    }
}
