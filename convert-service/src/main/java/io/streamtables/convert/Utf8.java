package io.streamtables.convert;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Strict UTF-8 check over bytes, without decoding them: the rules of the JDK's UTF-8 decoder with
 * {@code CodingErrorAction.REPORT} (Unicode table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF,
 * no truncated sequence). Jackson's byte parser accepts such sequences and changes the text, so every record is
 * checked before it is parsed.
 */
final class Utf8 {

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long HIGH_BITS = 0x8080808080808080L;

    private Utf8() {
    }

    static boolean valid(byte[] b, int from, int to) {
        int i = from;
        while (i < to) {
            // JSON is mostly ASCII: skip 32, then eight bytes at a time while none has its high bit set
            while (i + 32 <= to && (((long) LONGS.get(b, i) | (long) LONGS.get(b, i + 8) | (long) LONGS.get(b, i + 16)
                    | (long) LONGS.get(b, i + 24)) & HIGH_BITS) == 0) {
                i += 32;
            }
            while (i + 8 <= to && ((long) LONGS.get(b, i) & HIGH_BITS) == 0) {
                i += 8;
            }
            if (i == to) {
                break;
            }
            int c = b[i];
            if (c >= 0) {
                i++;
                continue;
            }
            c &= 0xFF;
            if (c < 0xC2 || c > 0xF4) {
                return false;
            }
            if (c < 0xE0) {
                if (i + 1 >= to || !continuation(b[i + 1])) {
                    return false;
                }
                i += 2;
            } else if (c < 0xF0) {
                if (i + 2 >= to || !second(b[i + 1], c == 0xE0 ? 0xA0 : 0x80, c == 0xED ? 0x9F : 0xBF)
                        || !continuation(b[i + 2])) {
                    return false;
                }
                i += 3;
            } else {
                if (i + 3 >= to || !second(b[i + 1], c == 0xF0 ? 0x90 : 0x80, c == 0xF4 ? 0x8F : 0xBF)
                        || !continuation(b[i + 2]) || !continuation(b[i + 3])) {
                    return false;
                }
                i += 4;
            }
        }
        return true;
    }

    private static boolean continuation(byte b) {
        return (b & 0xC0) == 0x80;
    }

    private static boolean second(byte b, int min, int max) {
        int v = b & 0xFF;
        return v >= min && v <= max;
    }
}
