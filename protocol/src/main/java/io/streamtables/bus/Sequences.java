package io.streamtables.bus;

import java.util.Comparator;

/** Kinesis sequence numbers are decimal strings of up to 128 bits; compare them without parsing. */
public final class Sequences {

    public static final Comparator<String> ORDER = Comparator.comparingInt(String::length)
            .thenComparing(Comparator.naturalOrder());

    private Sequences() {
    }

    /** True when {@code seq} is at or below {@code watermark}; nothing is below a null watermark. */
    public static boolean atOrBelow(String seq, String watermark) {
        return watermark != null && ORDER.compare(seq, watermark) <= 0;
    }

    public static String max(String a, String b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return ORDER.compare(a, b) >= 0 ? a : b;
    }
}
