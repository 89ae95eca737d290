package io.streamtables.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.networknt.schema.format.Format;
import com.networknt.schema.format.Formats;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The hand-written reader gives what the full {@code java.time} parse gives, or leaves the text to it. */
class Rfc3339Test {

    /** The full parse, as RowConverter runs it when the reader declines. */
    private static OffsetDateTime reference(String s) {
        String upper = s.toUpperCase(Locale.ROOT);
        if (upper.length() > 10 && upper.charAt(10) == ' ') {
            upper = upper.substring(0, 10) + 'T' + upper.substring(11);
        }
        try {
            return OffsetDateTime.parse(upper).withOffsetSameInstant(ZoneOffset.UTC).truncatedTo(ChronoUnit.MICROS);
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static void agrees(String s) {
        OffsetDateTime fast = Rfc3339.utcMicros(s);
        if (Rfc3339.surelyDateTime(s)) {
            assertNotNull(fast, s);
        }
        if (fast != null) {
            assertEquals(reference(s), fast, s);
        }
    }

    @Test
    void usualShapesAreReadByHand() {
        for (String s : new String[] {"2024-05-01T10:00:00Z", "2024-05-01t10:00:00z", "2024-05-01 10:00:00Z",
            "2024-05-01T15:30:00+05:30", "2024-05-01T05:00:00-05:00", "2024-05-01T10:00:00-00:00",
            "2024-02-29T23:59:59.999999999+17:59", "0001-01-01T00:00:00.1-01:00", "9999-12-31T23:59:59.123456Z",
            "2026-11-29T20:08:03.123456789Z", "2024-12-31T23:30:00-01:00"}) {
            assertNotNull(Rfc3339.utcMicros(s), s);
            assertEquals(reference(s), Rfc3339.utcMicros(s), s);
        }
    }

    /**
     * The format check skips the reference's date-time format for a text in the usual shape: sound only while the
     * reference accepts every one (it refuses the unknown offset, -00:00, which the shape admits). Every day of 12 years (leap, not, the ends of the range) and every time of day's
     * edges, with each separator, fraction and offset the shape admits and some it does not.
     */
    @Test
    void theReferenceFormatAcceptsEveryUsualDateTime() {
        Format reference = Formats.DEFAULT.stream().filter(f -> f.getName().equals("date-time"))
                .findFirst().orElseThrow();
        Format asked = Rfc3339.formatAskedLast(reference);
        String[] zones = {"Z", "z", "+00:00", "-00:00", "+05:30", "-17:59", "+17:59", "+18:00", "+01:60", "Y"};
        String[] fractions = {"", ".0", ".5", ".123456", ".123456789", ".1234567890", "."};
        String[] separators = {"T", "t", " ", "_"};
        int usual = 0;
        List<String> texts = new ArrayList<>();
        for (String year : new String[] {"0000", "0001", "1900", "1970", "2000", "2023", "2024", "2100", "9999"}) {
            for (int month = 0; month <= 13; month++) {
                for (int day = 0; day <= 32; day++) {
                    for (String zone : zones) {
                        texts.add(String.format("%s-%02d-%02dT12:00:00%s", year, month, day, zone));
                    }
                }
            }
        }
        for (int hour = 0; hour <= 24; hour++) {
            for (int minute : new int[] {0, 1, 59, 60}) {
                for (int second : new int[] {0, 59, 60}) {
                    for (String separator : separators) {
                        for (String fraction : fractions) {
                            for (String zone : zones) {
                                texts.add(String.format("2024-02-29%s%02d:%02d:%02d%s%s", separator, hour, minute,
                                        second, fraction, zone));
                            }
                        }
                    }
                }
            }
        }
        for (String s : texts) {
            if (Rfc3339.surelyDateTime(s)) {
                usual++;
                assertTrue(reference.matches(null, s), s);
            }
            assertEquals(reference.matches(null, s), asked.matches(null, s), s);
        }
        assertTrue(usual > texts.size() / 4, usual + " of " + texts.size() + " in the usual shape");
    }

    @Test
    void mutationsAgreeWithTheFullParse() {
        Random random = new Random(11);
        String alphabet = "0123456789-:.TtZz +x";
        String[] seeds = {"2024-05-01T10:00:00Z", "2024-02-29T23:59:59.5+05:30", "2023-02-28T00:00:00.123456789-18:00",
            "2024-04-30T24:00:00Z", "2024-01-31T12:60:61Z"};
        for (int n = 0; n < 300_000; n++) {
            char[] c = seeds[random.nextInt(seeds.length)].toCharArray();
            for (int k = random.nextInt(3); k >= 0; k--) {
                c[random.nextInt(c.length)] = alphabet.charAt(random.nextInt(alphabet.length()));
            }
            String s = new String(c);
            agrees(s);
            agrees(s.substring(0, random.nextInt(s.length() + 1)));
        }
    }
}
