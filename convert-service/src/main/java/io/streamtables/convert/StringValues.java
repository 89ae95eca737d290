package io.streamtables.convert;

import java.math.BigDecimal;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.util.Utf8;

/**
 * A string column's value is Avro's {@link Utf8}, as Iceberg's own Avro readers make it: Iceberg's Parquet writer
 * writes its bytes as they are, where it encodes a {@code String} again, with a new array, a {@code ByteBuffer} and a
 * {@code Binary} per value, a third of what a row costs to write. Map keys too.
 */
final class StringValues {

    private StringValues() {
    }

    static Utf8 of(String text) {
        return new Utf8(text);
    }

    /**
     * An enum's number as its string column holds it: the plain decimal text without trailing zeros, so that 1, 1.0
     * and 1e0, one value of the enum to the validator, are one value of the column. Its length is bounded: a number
     * with a decimal exponent beyond {@link RefusedValues#MAX_EXPONENT} never gets here.
     */
    static Utf8 ofNumber(BigDecimal number) {
        return new Utf8(number.stripTrailingZeros().toPlainString());
    }

    /**
     * The UTF-8 of {@code chars[from, from + length)} (the parser's buffer: no {@code String} on the way), or null
     * when it holds an unpaired surrogate, which has no UTF-8 (the reference refuses it: {@link RefusedValues}).
     * A short ASCII value the thread made recently is taken as it was made ({@link Recent}).
     */
    static Utf8 encode(char[] chars, int from, int length) {
        Utf8 recent = Recent.of(chars, from, length);
        return recent != null ? recent : utf8(chars, from, length);
    }

    private static Utf8 utf8(char[] chars, int from, int length) {
        int end = from + length;
        int bytes = 0;
        for (int i = from; i < end; i++) {
            char c = chars[i];
            if (c < 0x80) {
                bytes++;
            } else if (c < 0x800) {
                bytes += 2;
            } else if (!Character.isSurrogate(c)) {
                bytes += 3;
            } else if (Character.isHighSurrogate(c) && i + 1 < end && Character.isLowSurrogate(chars[i + 1])) {
                bytes += 4;
                i++;
            } else {
                return null;
            }
        }
        byte[] out = new byte[bytes];
        int o = 0;
        for (int i = from; i < end; i++) {
            char c = chars[i];
            if (c < 0x80) {
                out[o++] = (byte) c;
            } else if (c < 0x800) {
                out[o++] = (byte) (0xC0 | c >> 6);
                out[o++] = (byte) (0x80 | c & 0x3F);
            } else if (!Character.isSurrogate(c)) {
                out[o++] = (byte) (0xE0 | c >> 12);
                out[o++] = (byte) (0x80 | c >> 6 & 0x3F);
                out[o++] = (byte) (0x80 | c & 0x3F);
            } else {
                int cp = Character.toCodePoint(c, chars[++i]);
                out[o++] = (byte) (0xF0 | cp >> 18);
                out[o++] = (byte) (0x80 | cp >> 12 & 0x3F);
                out[o++] = (byte) (0x80 | cp >> 6 & 0x3F);
                out[o++] = (byte) (0x80 | cp & 0x3F);
            }
        }
        return new Utf8(out);
    }

    /**
     * The values a column repeats (a type, a country, a device's model, a tag, a user agent) are made once per thread
     * and shared by the rows, as map keys are, which saves a fifth of what a row allocates to decode.
     * A direct-mapped table of the values last made, by hash: one found is taken, one not found is made and takes its
     * slot, so a value that never repeats costs a hash. Per thread: no locks, and a row leaves its thread only through
     * a queue, which publishes its values with it. Bounded: 1 024 slots of at most 128 characters.
     */
    static final class Recent {
        static final int MAX_CHARS = 128;
        private static final int SLOTS = 1_024;
        private static final ThreadLocal<Recent> MADE = ThreadLocal.withInitial(Recent::new);

        private final int[] hashes = new int[SLOTS];
        private final Utf8[] values = new Utf8[SLOTS];

        private Recent() {
        }

        /** The value, found or made; null when it is long or not ASCII (the caller makes it each time). */
        static Utf8 of(char[] chars, int from, int length) {
            if (length > MAX_CHARS) {
                return null;
            }
            int hash = 0;
            for (int i = from, end = from + length; i < end; i++) {
                char c = chars[i];
                if (c >= 0x80) {
                    return null;
                }
                hash = 31 * hash + c;
            }
            Recent made = MADE.get();
            int slot = (hash ^ hash >>> 16) & (SLOTS - 1);
            Utf8 found = made.values[slot];
            if (found != null && made.hashes[slot] == hash && same(found, chars, from, length)) {
                return found;
            }
            made.hashes[slot] = hash;
            return made.values[slot] = utf8(chars, from, length);
        }

        private static boolean same(Utf8 value, char[] chars, int from, int length) {
            if (value.getByteLength() != length) {
                return false;
            }
            byte[] ascii = value.getBytes();
            for (int i = 0; i < length; i++) {
                if (ascii[i] != chars[from + i]) {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * A map's keys: the parser's names are shared Strings, so each one's Utf8 is made once and shared by the rows
     * (nothing writes into a Utf8). Bounded: a producer's ever new names are made each time past it.
     */
    static final class Keys {
        private static final int MAX = 1_024;
        private final Map<String, Utf8> made = new ConcurrentHashMap<>();

        /** The key's Utf8, or null when it holds an unpaired surrogate (it has no UTF-8: the reference refuses it). */
        Utf8 of(String name) {
            Utf8 key = made.get(name);
            if (key == null) {
                if (RefusedValues.unpairedSurrogate(name)) {
                    return null;
                }
                key = StringValues.of(name);
                if (made.size() < MAX) {
                    made.put(name, key);
                }
            }
            return key;
        }
    }
}
