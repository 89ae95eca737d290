package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ExplorePlanTest {

    @Test
    void aSeedDrawsTheSameStepsEveryTime() {
        assertEquals(ExplorePlan.of(21, 8), ExplorePlan.of(21, 8));
        assertNotEquals(ExplorePlan.of(21, 8), ExplorePlan.of(22, 8));
    }

    @Test
    void everyPlanIsWellFormedAndReadsBackAsWritten() {
        Set<Class<?>> kinds = new HashSet<>();
        for (long seed = 0; seed < 1_000; seed++) {
            List<ExploreStep> steps = ExplorePlan.of(seed, 12);
            assertTrue(ExploreStep.wellFormed(steps), "seed " + seed + ": " + ExploreStep.format(steps));
            assertEquals(steps, ExploreStep.parseAll(ExploreStep.format(steps)), "seed " + seed);
            steps.forEach(s -> kinds.add(s.getClass()));
        }
        assertEquals(ExploreStep.class.getPermittedSubclasses().length, kinds.size(), "kinds drawn: " + kinds);
    }

    @Test
    void theSeedsOfCiDrawEveryKindOfStep() {
        Set<Class<?>> kinds = new HashSet<>();
        for (long seed : ExplorerIT.SEEDS) {
            ExplorePlan.of(seed, ExplorerIT.LENGTH).forEach(s -> kinds.add(s.getClass()));
        }
        assertEquals(ExploreStep.class.getPermittedSubclasses().length, kinds.size(), "kinds drawn: " + kinds);
    }

    @Test
    void aSequenceThePlanCouldNotDrawIsNotWellFormed() {
        assertTrue(ExploreStep.wellFormed(ExploreStep.parseAll(
                "create c1 s1 t1 1; delete c1; create c1 s2 t1 1; update c1 3; create c2 s1 t2 1")));
        for (String steps : List.of("create c1 s1 t1 1; create c1 s2 t2 1", "delete c1", "update c1 3",
                "create c1 s1 t1 1; delete c1; delete c1", "create c1 s1 t1 1; create c2 s2 t1 1")) {
            assertFalse(ExploreStep.wellFormed(ExploreStep.parseAll(steps)), steps);
        }
    }
}
