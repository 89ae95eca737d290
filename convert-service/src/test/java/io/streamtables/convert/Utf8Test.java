package io.streamtables.convert;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link Utf8#valid} accepts exactly what the JDK's strict UTF-8 decoder accepts. */
class Utf8Test {

    private static final CharsetDecoder STRICT = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);

    /** Each end of every range of table 3-7, and bytes outside them. */
    private static final int[] EDGES = {0x00, 0x41, 0x7F, 0x80, 0x81, 0x8F, 0x90, 0x9F, 0xA0, 0xBE, 0xBF, 0xC0, 0xC2,
        0xE0, 0xF4, 0xFF};

    private static boolean jdk(byte[] b) {
        try {
            STRICT.decode(ByteBuffer.wrap(b));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private static void same(byte[] b) {
        assertEquals(jdk(b), Utf8.valid(b, 0, b.length), () -> "bytes " + Arrays.toString(b));
    }

    @Test
    void everySequenceOfUpToThreeBytes() {
        for (int a = 0; a < 256; a++) {
            same(new byte[] {(byte) a});
            for (int b = 0; b < 256; b++) {
                same(new byte[] {(byte) a, (byte) b});
                if (a >= 0xE0) { // three-byte sequences only matter after a lead byte of three or four
                    for (int c : EDGES) {
                        same(new byte[] {(byte) a, (byte) b, (byte) c});
                    }
                }
            }
        }
    }

    @Test
    void fourByteSequencesAtTheBoundaries() {
        for (int a = 0xF0; a < 256; a++) {
            for (int b = 0; b < 256; b++) {
                for (int c : EDGES) {
                    for (int d : EDGES) {
                        same(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
                    }
                }
            }
        }
    }

    @Test
    void longRunsOfAsciiAroundBrokenBytes() {
        for (int length = 1; length < 40; length++) {
            for (int at = 0; at < length; at++) {
                for (int bad : new int[] {0x80, 0xC3, 0xE2, 0xF0, 0xFF}) {
                    byte[] b = new byte[length];
                    Arrays.fill(b, (byte) 'a');
                    b[at] = (byte) bad;
                    same(b);
                }
            }
        }
    }

    @Test
    void randomTextWithinARange() {
        Random random = new Random(7);
        byte[] pool = {'a', '{', '"', (byte) 0x80, (byte) 0x8F, (byte) 0x90, (byte) 0xA0, (byte) 0xBF, (byte) 0xC2,
            (byte) 0xDF, (byte) 0xE0, (byte) 0xED, (byte) 0xEF, (byte) 0xF0, (byte) 0xF4, (byte) 0xF5, (byte) 0xC0};
        for (int n = 0; n < 200_000; n++) {
            byte[] b = new byte[1 + random.nextInt(12)];
            for (int i = 0; i < b.length; i++) {
                b[i] = pool[random.nextInt(pool.length)];
            }
            same(b);
            // the same bytes inside a larger array: only [from, to) counts
            byte[] padded = new byte[b.length + 4];
            System.arraycopy(b, 0, padded, 2, b.length);
            padded[0] = (byte) 0xFF;
            padded[padded.length - 1] = (byte) 0xE0;
            assertEquals(jdk(b), Utf8.valid(padded, 2, 2 + b.length), () -> "bytes " + Arrays.toString(b));
        }
    }
}
