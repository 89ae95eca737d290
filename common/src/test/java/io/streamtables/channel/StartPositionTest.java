package io.streamtables.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Backfill: the tag that chooses where a new channel starts reading. */
class StartPositionTest {

    private static final Instant ACTIVATED = Instant.parse("2026-12-02T10:00:00Z");

    @Test
    void theActivationUnlessTheTagSaysTrimHorizonOrATimestamp() {
        assertEquals(ACTIVATED, StartPosition.of(null).from(ACTIVATED), "no tags: the seed's behaviour");
        assertEquals(ACTIVATED, StartPosition.of(Map.of("team", "a")).from(ACTIVATED));
        assertEquals(ACTIVATED, StartPosition.of(Map.of(StartPosition.TAG, "ACTIVATION")).from(ACTIVATED));
        assertNull(StartPosition.of(Map.of(StartPosition.TAG, "TRIM_HORIZON")).from(ACTIVATED));
        assertEquals(Instant.parse("2026-12-01T00:00:00Z"),
                StartPosition.of(Map.of(StartPosition.TAG, "2026-12-01T00:00:00Z")).from(ACTIVATED));
    }

    /** A record is the channel's from where it started: its activation, the tag's instant, or any with TRIM_HORIZON. */
    @Test
    void aRecordIsTheChannelsFromWhereItStarted() {
        long before = ACTIVATED.toEpochMilli() - 1;
        assertFalse(StartPosition.of(null).delivers(ACTIVATED, before), "put before the activation");
        assertTrue(StartPosition.of(null).delivers(ACTIVATED, ACTIVATED.toEpochMilli()));
        assertTrue(StartPosition.of(Map.of(StartPosition.TAG, "TRIM_HORIZON")).delivers(ACTIVATED, 0));
        StartPosition backfill = StartPosition.of(Map.of(StartPosition.TAG, "2026-12-01T00:00:00Z"));
        assertTrue(backfill.delivers(ACTIVATED, before));
        assertFalse(backfill.delivers(ACTIVATED, Instant.parse("2026-11-30T23:59:59Z").toEpochMilli()));
    }

    @Test
    void anythingElseIsRefusedNamingTheTagAndItsValues() {
        for (String value : new String[] {"LATEST", "trim_horizon", "2026-12-01", "yesterday", ""}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> StartPosition.of(Map.of(StartPosition.TAG, value)));
            assertTrue(e.getMessage().contains("'delivery:start-position' must be ACTIVATION (the default), "
                    + "TRIM_HORIZON or an ISO-8601 instant"), e.getMessage());
        }
    }
}
