package io.streamtables.convert;

import com.networknt.schema.ExecutionContext;
import com.networknt.schema.format.Format;
import java.time.LocalDateTime;
import java.time.Month;
import java.time.OffsetDateTime;
import java.time.Year;
import java.time.ZoneOffset;

/**
 * The usual shape of an RFC 3339 date-time, {@code yyyy-MM-ddTHH:mm:ss[.f…](Z|±HH:MM)}, read by hand: the
 * {@code java.time} parser costs more than the rest of a timestamp's conversion. Anything else is left to
 * {@link RowConverter}'s full parse, which decides and names the error.
 */
final class Rfc3339 {

    private Rfc3339() {
    }

    /** The instant at UTC truncated to microseconds, or null when the text is not in the usual shape or range. */
    static OffsetDateTime utcMicros(String s) {
        int offsetSeconds = offsetSeconds(s);
        if (offsetSeconds == NOT_USUAL) {
            return null;
        }
        int nanos = 0;
        if (s.charAt(19) == '.') {
            int end = fractionEnd(s);
            nanos = digits(s, 20, end);
            for (int k = end - 20; k < 9; k++) {
                nanos *= 10;
            }
        }
        LocalDateTime local = LocalDateTime.of(digits(s, 0, 4), digits(s, 5, 7), digits(s, 8, 10), digits(s, 11, 13),
                digits(s, 14, 16), digits(s, 17, 19), nanos - nanos % 1000);
        return OffsetDateTime.of(offsetSeconds == 0 ? local : local.minusSeconds(offsetSeconds), ZoneOffset.UTC);
    }

    /**
     * Whether the reference's {@code date-time} format accepts the text, known without making anything: a date-time in
     * the usual shape and range accepts, but for RFC 3339's unknown offset, {@code -00:00}, which ethlo refuses
     * (Rfc3339Test checks them against the reference). Ethlo's parse makes an {@code OffsetDateTime} of each text.
     */
    static boolean surelyDateTime(String s) {
        return offsetSeconds(s) != NOT_USUAL && !s.endsWith("-00:00");
    }

    /** The reference's {@code date-time} format, asked only about a text that is not {@link #surelyDateTime}. */
    static Format formatAskedLast(Format reference) {
        return new Format() {
            @Override
            public String getName() {
                return reference.getName();
            }

            @Override
            public String getMessageKey() {
                return reference.getMessageKey();
            }

            @Override
            public boolean matches(ExecutionContext context, String value) {
                return surelyDateTime(value) || reference.matches(context, value);
            }
        };
    }

    private static final int NOT_USUAL = Integer.MIN_VALUE;

    /** The offset in seconds of a date-time in the usual shape and range, else {@link #NOT_USUAL}. */
    private static int offsetSeconds(String s) {
        int n = s.length();
        if (n < 20 || s.charAt(4) != '-' || s.charAt(7) != '-' || s.charAt(13) != ':' || s.charAt(16) != ':') {
            return NOT_USUAL;
        }
        char t = s.charAt(10);
        if (t != 'T' && t != 't' && t != ' ') {
            return NOT_USUAL;
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 7);
        int day = digits(s, 8, 10);
        int hour = digits(s, 11, 13);
        int minute = digits(s, 14, 16);
        int second = digits(s, 17, 19);
        if ((year | hour | minute | second) < 0 || month < 1 || month > 12 || day < 1
                || day > Month.of(month).length(Year.isLeap(year)) || hour > 23 || minute > 59 || second > 59) {
            return NOT_USUAL;
        }
        int i = s.charAt(19) == '.' ? fractionEnd(s) : 19;
        if (i < 0) {
            return NOT_USUAL;
        }
        if (i == n - 1 && (s.charAt(i) == 'Z' || s.charAt(i) == 'z')) {
            return 0;
        }
        if (i == n - 6 && (s.charAt(i) == '+' || s.charAt(i) == '-') && s.charAt(i + 3) == ':') {
            int hours = digits(s, i + 1, i + 3);
            int minutes = digits(s, i + 4, i + 6);
            if ((hours | minutes) < 0 || hours > 17 || minutes > 59) {
                return NOT_USUAL;
            }
            return (s.charAt(i) == '-' ? -1 : 1) * (hours * 3600 + minutes * 60);
        }
        return NOT_USUAL;
    }

    /** The end of the 1 to 9 digits after the point at 19, or -1 when there are none or more. */
    private static int fractionEnd(String s) {
        int i = 20;
        while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
            i++;
        }
        return i == 20 || i - 20 > 9 ? -1 : i;
    }

    /** The decimal number in {@code [from, to)}, or -1 when a character is not a digit. */
    private static int digits(String s, int from, int to) {
        int v = 0;
        for (int i = from; i < to; i++) {
            int d = s.charAt(i) - '0';
            if (d < 0 || d > 9) {
                return -1;
            }
            v = v * 10 + d;
        }
        return v;
    }
}
