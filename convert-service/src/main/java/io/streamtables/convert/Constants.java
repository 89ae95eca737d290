package io.streamtables.convert;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The values of an {@code enum} or a {@code const}: strings and booleans by equality, numbers by numeric value (the
 * validator compares {@code 1}, {@code 1.0} and {@code 1e0} as equal), null. Objects and arrays are not taken.
 */
final class Constants {

    private final Set<String> strings = new HashSet<>();
    private final List<BigDecimal> numbers = new ArrayList<>();
    private boolean hasTrue;
    private boolean hasFalse;
    private boolean hasNull;

    /** @return null when a value is an object, an array or a number that is not finite */
    static Constants of(Iterable<JsonNode> values) {
        Constants c = new Constants();
        for (JsonNode v : values) {
            if (v.isTextual()) {
                c.strings.add(v.textValue());
            } else if (v.isNumber()) {
                if (v.isFloatingPointNumber() && !v.isBigDecimal() && !Double.isFinite(v.doubleValue())) {
                    return null;
                }
                c.numbers.add(v.decimalValue());
            } else if (v.isBoolean()) {
                c.hasTrue |= v.booleanValue();
                c.hasFalse |= !v.booleanValue();
            } else if (v.isNull()) {
                c.hasNull = true;
            } else {
                return null;
            }
        }
        return c;
    }

    boolean hasString(String s) {
        return strings.contains(s);
    }

    boolean hasNumber(BigDecimal n) {
        for (BigDecimal m : numbers) {
            if (m.compareTo(n) == 0) {
                return true;
            }
        }
        return false;
    }

    boolean hasBoolean(boolean b) {
        return b ? hasTrue : hasFalse;
    }

    boolean hasNull() {
        return hasNull;
    }
}
