package io.streamtables.convert;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.util.Utf8;

/**
 * A string column's value is Avro's {@link Utf8}, as Iceberg's own Avro readers make it: Iceberg's Parquet writer
 * writes its bytes as they are, where it encodes a {@code String} again, with a new array, a {@code ByteBuffer} and a
 * {@code Binary} per value (2.1 KB of the 6.6 KB a bench row cost to write; docs/BENCHMARKS.md). Map keys too (0.8 KB
 * more).
 */
final class StringValues {

    private StringValues() {
    }

    static Utf8 of(String text) {
        return new Utf8(text);
    }

    /**
     * The UTF-8 of {@code chars[from, from + length)} (the parser's buffer: no {@code String} on the way), or null
     * when it holds an unpaired surrogate, which has no UTF-8 (the reference refuses it: {@link RefusedValues}).
     */
    static Utf8 encode(char[] chars, int from, int length) {
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
