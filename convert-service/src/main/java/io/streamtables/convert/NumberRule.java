package io.streamtables.convert;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;

/**
 * A number's bounds and {@code multipleOf}, checked as the validator checks them: bounds exactly (a long against the
 * bounds rounded to longs), {@code multipleOf} on the dividend it uses, which for an integer token is the integer
 * rounded to a double ({@code 9007199254740993} is a multiple of 2 to it).
 */
final class NumberRule {

    /**
     * Floats at or beyond 2^63 in magnitude: where "type" is "integer", the validator compares an integer float with a
     * bound as a wrapped long (1e19 is below a minimum of 0 to it).
     */
    private static final BigDecimal LONG_RANGE = BigDecimal.valueOf(2).pow(63);
    /** Integers of at most 53 bits are exact doubles. */
    private static final long EXACT_DOUBLE = 1L << 53;

    private final List<BigDecimal> lower = new ArrayList<>();
    private final List<Boolean> lowerExclusive = new ArrayList<>();
    private final List<BigDecimal> upper = new ArrayList<>();
    private final List<Boolean> upperExclusive = new ArrayList<>();
    /** The longs the bounds admit: {@code [lowestLong, highestLong]}, none when a bound lies beyond the long range. */
    private long lowestLong = Long.MIN_VALUE;
    private long highestLong = Long.MAX_VALUE;
    private boolean noLong;
    private final boolean integerType;
    private BigDecimal divisor;
    /** The divisor as a long when it is an integer of at most 53 bits, else 0. */
    private long longDivisor;

    NumberRule(boolean integerType) {
        this.integerType = integerType;
    }

    void lower(BigDecimal bound, boolean exclusive) {
        lower.add(bound);
        lowerExclusive.add(exclusive);
        BigDecimal least = exclusive ? bound.setScale(0, RoundingMode.FLOOR).add(BigDecimal.ONE)
                : bound.setScale(0, RoundingMode.CEILING);
        noLong |= least.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0;
        lowestLong = Math.max(lowestLong, clamp(least));
    }

    void upper(BigDecimal bound, boolean exclusive) {
        upper.add(bound);
        upperExclusive.add(exclusive);
        BigDecimal most = exclusive ? bound.setScale(0, RoundingMode.CEILING).subtract(BigDecimal.ONE)
                : bound.setScale(0, RoundingMode.FLOOR);
        noLong |= most.compareTo(BigDecimal.valueOf(Long.MIN_VALUE)) < 0;
        highestLong = Math.min(highestLong, clamp(most));
    }

    void multipleOf(BigDecimal value) {
        divisor = value;
        longDivisor = value.scale() <= 0 && value.abs().compareTo(BigDecimal.valueOf(EXACT_DOUBLE)) <= 0
                ? value.longValueExact() : 0;
    }

    /** An integer token. */
    void check(long value) {
        if (noLong || value < lowestLong || value > highestLong) {
            throw CompiledDecoder.NotSure.INSTANCE;
        }
        if (divisor != null) {
            if (longDivisor != 0 && Math.abs(value) <= EXACT_DOUBLE) {
                if (value % longDivisor != 0) {
                    throw CompiledDecoder.NotSure.INSTANCE;
                }
            } else {
                multiple(BigDecimal.valueOf((double) value));
            }
        }
    }

    /** An integer token beyond the long range: the validator compares it exactly, and divides its double. */
    void check(BigInteger value) {
        bounds(new BigDecimal(value));
        if (divisor != null) {
            double d = value.doubleValue();
            if (Double.isInfinite(d)) {
                throw CompiledDecoder.NotSure.INSTANCE; // the validator throws on it
            }
            multiple(BigDecimal.valueOf(d));
        }
    }

    /** A float token, exact. */
    void check(BigDecimal value) {
        if (integerType && !(lower.isEmpty() && upper.isEmpty()) && value.abs().compareTo(LONG_RANGE) >= 0) {
            throw CompiledDecoder.NotSure.INSTANCE;
        }
        bounds(value);
        if (divisor != null) {
            multiple(value);
        }
    }

    private void bounds(BigDecimal value) {
        for (int i = 0; i < lower.size(); i++) {
            int c = value.compareTo(lower.get(i));
            if (c < 0 || c == 0 && lowerExclusive.get(i)) {
                throw CompiledDecoder.NotSure.INSTANCE;
            }
        }
        for (int i = 0; i < upper.size(); i++) {
            int c = value.compareTo(upper.get(i));
            if (c > 0 || c == 0 && upperExclusive.get(i)) {
                throw CompiledDecoder.NotSure.INSTANCE;
            }
        }
    }

    private void multiple(BigDecimal dividend) {
        if (dividend.divideAndRemainder(divisor)[1].signum() != 0) {
            throw CompiledDecoder.NotSure.INSTANCE;
        }
    }

    private static long clamp(BigDecimal integral) {
        return integral.max(BigDecimal.valueOf(Long.MIN_VALUE)).min(BigDecimal.valueOf(Long.MAX_VALUE)).longValueExact();
    }
}
