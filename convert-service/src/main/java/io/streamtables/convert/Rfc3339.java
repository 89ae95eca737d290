package io.streamtables.convert;

import java.time.DateTimeException;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
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
        int n = s.length();
        if (n < 20 || s.charAt(4) != '-' || s.charAt(7) != '-' || s.charAt(13) != ':' || s.charAt(16) != ':') {
            return null;
        }
        char t = s.charAt(10);
        if (t != 'T' && t != 't' && t != ' ') {
            return null;
        }
        int year = digits(s, 0, 4);
        int month = digits(s, 5, 7);
        int day = digits(s, 8, 10);
        int hour = digits(s, 11, 13);
        int minute = digits(s, 14, 16);
        int second = digits(s, 17, 19);
        if ((year | month | day | hour | minute | second) < 0 || hour > 23 || minute > 59 || second > 59) {
            return null;
        }
        int i = 19;
        int nanos = 0;
        if (s.charAt(i) == '.') {
            int start = ++i;
            while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
                i++;
            }
            if (i == start || i - start > 9) {
                return null;
            }
            nanos = digits(s, start, i);
            for (int k = i - start; k < 9; k++) {
                nanos *= 10;
            }
        }
        int offsetSeconds;
        if (i == n - 1 && (s.charAt(i) == 'Z' || s.charAt(i) == 'z')) {
            offsetSeconds = 0;
        } else if (i == n - 6 && (s.charAt(i) == '+' || s.charAt(i) == '-') && s.charAt(i + 3) == ':') {
            int hours = digits(s, i + 1, i + 3);
            int minutes = digits(s, i + 4, i + 6);
            if ((hours | minutes) < 0 || hours > 17 || minutes > 59) {
                return null;
            }
            offsetSeconds = (s.charAt(i) == '-' ? -1 : 1) * (hours * 3600 + minutes * 60);
        } else {
            return null;
        }
        try {
            LocalDateTime local = LocalDateTime.of(year, month, day, hour, minute, second, nanos - nanos % 1000);
            return OffsetDateTime.of(offsetSeconds == 0 ? local : local.minusSeconds(offsetSeconds), ZoneOffset.UTC);
        } catch (DateTimeException e) {
            return null; // a day the month does not have
        }
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
