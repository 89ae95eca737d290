package io.streamtables.convert;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

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
}
