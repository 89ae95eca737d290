package io.streamtables.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.bus.Reject;
import io.streamtables.bus.Sequences;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShardProgressTest {

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
        Reject r = CommitFixture.reject("5", 0);
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
        p.reject(CommitFixture.reject("7", 0));
        p.discardOpen();
        assertEquals("5", p.high());
        assertEquals(List.of(), p.takeForCut(), "the open rejects are gone with the open rows");
        p.advanceTo("8");
        p.discardAll();
        assertEquals("3", p.high());
        assertFalse(p.hasUncommitted());
    }
}
