package io.streamtables.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.avro.util.Utf8;
import org.junit.jupiter.api.Test;

class StringValuesTest {

    @Test
    void encodesAsTheJdkDoes() {
        SplittableRandom random = new SplittableRandom(39);
        char[] alphabet = {'a', '~', '\u00e9', '\u07ff', '\u0800', '\u20ac', '\uffff', '\ud83d', '\ude00'};
        for (int n = 0; n < 20_000; n++) {
            StringBuilder text = new StringBuilder();
            for (int i = random.nextInt(12); i > 0; i--) {
                char c = alphabet[random.nextInt(alphabet.length)];
                if (Character.isSurrogate(c)) {
                    text.append("\ud83d\ude00"); // pairs only: a lone one has no UTF-8
                } else {
                    text.append(c);
                }
            }
            String s = text.toString();
            char[] padded = ("<<" + s + ">>").toCharArray(); // a slice of the parser's buffer
            Utf8 utf8 = StringValues.encode(padded, 2, s.length());
            assertArrayEquals(s.getBytes(StandardCharsets.UTF_8), Arrays.copyOf(utf8.getBytes(), utf8.getByteLength()), s);
        }
    }

    @Test
    void anUnpairedSurrogateHasNoUtf8() {
        for (String lone : new String[] {"\ud800", "a\ud800b", "\udc00", "\ude00\ud83d", "x\ud83d"}) {
            assertNull(StringValues.encode(lone.toCharArray(), 0, lone.length()), lone);
        }
        // the pair's high half at the slice's end, its low half past it
        assertNull(StringValues.encode("\ud83d\ude00".toCharArray(), 0, 1));
    }

    @Test
    void aShortAsciiValueIsMadeOncePerThread() throws Exception {
        Utf8 first = StringValues.encode("{\"currency\":\"USD\"".toCharArray(), 13, 3);
        Utf8 again = StringValues.encode("USD".toCharArray(), 0, 3);
        assertSame(first, again);
        assertEquals(new Utf8("USD"), again);
        Utf8[] elsewhere = new Utf8[1];
        Thread other = new Thread(() -> elsewhere[0] = StringValues.encode("USD".toCharArray(), 0, 3));
        other.start();
        other.join();
        assertNotSame(first, elsewhere[0]);
        assertEquals(first, elsewhere[0]);
    }

    @Test
    void longAndNonAsciiValuesAreMadeEachTime() {
        String[] values = {"x".repeat(StringValues.Recent.MAX_CHARS + 1), "caf\u00e9", "\ud83d\ude00"};
        for (String value : values) {
            Utf8 first = StringValues.encode(value.toCharArray(), 0, value.length());
            Utf8 again = StringValues.encode(value.toCharArray(), 0, value.length());
            assertNotSame(first, again, value);
            assertEquals(first, again, value);
        }
        String limit = "y".repeat(StringValues.Recent.MAX_CHARS);
        assertSame(StringValues.encode(limit.toCharArray(), 0, limit.length()),
                StringValues.encode(limit.toCharArray(), 0, limit.length()));
    }

    /** Far more values than slots, each asked for again later: whatever was taken or made, its bytes are the value. */
    @Test
    void aValueFoundIsAlwaysTheValueAskedFor() {
        SplittableRandom random = new SplittableRandom(7);
        String[] values = new String[5_000];
        for (int i = 0; i < values.length; i++) {
            char[] chars = new char[random.nextInt(StringValues.Recent.MAX_CHARS + 1)];
            for (int c = 0; c < chars.length; c++) {
                chars[c] = (char) random.nextInt(0x80);
            }
            values[i] = new String(chars);
        }
        for (int n = 0; n < 200_000; n++) {
            String s = values[random.nextInt(random.nextBoolean() ? 40 : values.length)];
            Utf8 utf8 = StringValues.encode(s.toCharArray(), 0, s.length());
            assertArrayEquals(s.getBytes(StandardCharsets.US_ASCII),
                    Arrays.copyOf(utf8.getBytes(), utf8.getByteLength()), s);
        }
    }
}
