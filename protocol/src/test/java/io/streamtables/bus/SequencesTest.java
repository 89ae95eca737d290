package io.streamtables.bus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SequencesTest {

    // Real Kinesis sequence numbers are 56 digits; shorter ones (kinesis-local) must still order numerically.
    private static final String S56 = "49590338271490256608559692538361571095921575989136588898";

    @Test
    void ordersByNumericValueAcrossLengths() {
        assertTrue(Sequences.ORDER.compare("99", "100") < 0); // "99" > "100" as plain strings
        assertTrue(Sequences.ORDER.compare("100", "99") > 0);
        assertEquals(0, Sequences.ORDER.compare(S56, new String(S56)));
        String next = new BigInteger(S56).add(BigInteger.ONE).toString();
        assertTrue(Sequences.ORDER.compare(S56, next) < 0);
        assertTrue(Sequences.ORDER.compare("9", S56) < 0);

        List<String> sorted = new ArrayList<>(List.of(S56, "10", "9", "1000", "999", next));
        sorted.sort(Sequences.ORDER);
        assertEquals(List.of("9", "10", "999", "1000", S56, next), sorted);
    }

    @Test
    void atOrBelow() {
        assertFalse(Sequences.atOrBelow("1", null), "nothing is below a null watermark");
        assertFalse(Sequences.atOrBelow(S56, null));
        assertTrue(Sequences.atOrBelow("100", "100"));
        assertTrue(Sequences.atOrBelow("99", "100"));
        assertFalse(Sequences.atOrBelow("101", "100"));
        assertFalse(Sequences.atOrBelow("100", "99"));
        assertTrue(Sequences.atOrBelow("99", S56));
    }

    @Test
    void max() {
        assertNull(Sequences.max(null, null));
        assertEquals("5", Sequences.max(null, "5"));
        assertEquals("5", Sequences.max("5", null));
        assertEquals("100", Sequences.max("99", "100"));
        assertEquals("100", Sequences.max("100", "99"));
    }
}
