package io.streamtables.watermarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.bus.CommitToken;
import io.streamtables.bus.ErrorCode;
import io.streamtables.bus.Reject;
import io.streamtables.bus.RewindException;
import io.streamtables.bus.Sequences;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A shard's progress in a commit instance, and the accept-or-drop rule for its chunks. */
class ShardProgressTest {

    private static final String SHARD = WatermarksFixture.SHARD;

    private static CommitToken chunk(String previous, String first, String last) {
        return new CommitToken("arn:aws:kinesis:us-east-1:000000000000:channel/orders", WatermarksFixture.STREAM, SHARD,
                previous, first, last);
    }

    private static Reject reject(String sequence) {
        return new Reject("arn:aws:kinesis:us-east-1:000000000000:stream/orders", SHARD, sequence, 0,
                ErrorCode.SCHEMA_VALIDATION_FAILED, "/id fails rule 'type'", "/id");
    }

    @Test
    void aChunkThatContinuesTheHighMarkIsTakenWhole() {
        ShardProgress p = new ShardProgress("5");
        ShardProgress.Accepted accepted = p.accept(chunk("5", "6", "9"));
        assertFalse(accepted.replay());
        assertTrue(accepted.takes("6"));
        assertTrue(accepted.takes("9"));
    }

    @Test
    void anOverlapIsTakenAfterTheHighMarkOnly() {
        ShardProgress p = new ShardProgress("5");
        p.advanceTo("8");
        ShardProgress.Accepted accepted = p.accept(chunk("3", "4", "10"));
        assertFalse(accepted.takes("8"));
        assertTrue(accepted.takes("9"));
        // read again from the activation: overlaps anything
        accepted = p.accept(chunk(null, "1", "10"));
        assertFalse(accepted.takes("5"));
        assertTrue(accepted.takes("10"));
    }

    @Test
    void aChunkAtOrBelowTheHighMarkIsAReplay() {
        ShardProgress p = new ShardProgress("5");
        p.advanceTo("9");
        ShardProgress.Accepted replay = p.accept(chunk("5", "6", "9"));
        assertTrue(replay.replay());
        assertFalse(replay.takes("6"));
        assertFalse(replay.takes("10"), "a replay takes nothing");
    }

    @Test
    void aGapAsksForARewindToTheHighMark() {
        ShardProgress p = new ShardProgress("5");
        p.advanceTo("8");
        RewindException e = assertThrows(RewindException.class, () -> p.accept(chunk("9", "10", "12")));
        assertEquals(SHARD, e.shardId());
        assertEquals("8", e.resumeAfter());
        // a shard with nothing committed or buffered rewinds to the channel's activation
        e = assertThrows(RewindException.class, () -> new ShardProgress(null).accept(chunk("5", "6", "7")));
        assertNull(e.resumeAfter());
    }

    @Test
    void freshShard() {
        ShardProgress p = new ShardProgress(null);
        assertNull(p.high());
        assertNull(p.committed());
        assertFalse(p.hasUncommitted());
        assertFalse(Sequences.atOrBelow("1", p.high()));
    }

    @Test
    void advancesNumericallyAndNeverBack() {
        ShardProgress p = new ShardProgress("9");
        assertTrue(Sequences.atOrBelow("9", p.high()));
        assertFalse(p.hasUncommitted());

        p.advanceTo("10"); // shorter strings are smaller numbers
        assertEquals("10", p.high());
        assertTrue(Sequences.atOrBelow("9", p.high()));
        assertTrue(Sequences.atOrBelow("10", p.high()));
        assertFalse(Sequences.atOrBelow("11", p.high()));
        assertTrue(p.hasUncommitted());

        p.advanceTo("2");
        assertEquals("10", p.high());
        assertEquals("9", p.committed());

        p.committedUpTo("10");
        assertEquals("10", p.committed());
        assertFalse(p.hasUncommitted());
        p.committedUpTo("9");
        assertEquals("10", p.committed(), "a late acknowledgement does not move it back");
    }

    @Test
    void takeForCutEmptiesTheList() {
        ShardProgress p = new ShardProgress(null);
        Reject r = reject("5");
        p.reject(r);
        assertEquals(List.of(r), p.takeForCut());
        assertEquals(List.of(), p.takeForCut());
    }

    @Test
    void discardOpenKeepsThePendingCutDiscardAllDoesNot() {
        ShardProgress p = new ShardProgress("3");
        p.advanceTo("5");
        p.takeForCut(); // 4..5 wait for their commit
        p.advanceTo("8");
        p.reject(reject("7"));
        p.discardOpen();
        assertEquals("5", p.high());
        assertEquals(List.of(), p.takeForCut(), "the open rejects are gone with the open rows");
        p.advanceTo("8");
        p.discardAll();
        assertEquals("3", p.high());
        assertFalse(p.hasUncommitted());
    }
}
