package io.streamtables.tasks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void waitsDoubleUpToTheCapEachInTheUpperHalfOfItsBound() {
        Backoff backoff = new Backoff(1_000, 30_000);
        long[] bounds = {1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000};
        for (long bound : bounds) {
            assertEquals(bound, backoff.bound());
            long wait = backoff.next();
            assertTrue(wait >= bound / 2 && wait <= bound, wait + " ms for a bound of " + bound + " ms");
        }
        backoff.reset();
        assertEquals(1_000, backoff.bound());
    }

    @Test
    void instancesThatFailedTogetherRetryApart() {
        Set<Long> waits = new HashSet<>();
        for (int instance = 0; instance < 20; instance++) {
            Backoff backoff = new Backoff(1_000, 30_000);
            backoff.next();
            waits.add(backoff.next());
        }
        assertTrue(waits.size() > 10, "20 instances' second waits: " + waits);
    }

    @Test
    void aBackoffThatCannotWaitIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new Backoff(0, 10));
        assertThrows(IllegalArgumentException.class, () -> new Backoff(100, 10));
    }
}
