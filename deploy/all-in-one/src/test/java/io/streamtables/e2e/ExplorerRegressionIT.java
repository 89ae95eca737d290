package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;

/**
 * What the explorer found, each kept as the shortest sequence of steps that broke the model, with the seed that
 * found it (docs/DESIGN.md "The explorer"): each run passes since its fix.
 */
class ExplorerRegressionIT {

    /**
     * A channel deleted and created again under its name on another stream, into the same table, read the second
     * stream after the first stream's positions (its shards have the same ids), which Kinesis does not find: nothing
     * of the second stream was delivered, the channel ACTIVE all along. Found by seed 21 (10 steps, 47 violations) on
     * the code before the checkpoint's keys named the stream (1c03463), shrunk there to these 5 steps, which still
     * failed: every record put on g1 there 0 times.
     */
    @Test
    void aChannelCreatedAgainOnAnotherStreamDeliversIt() throws Exception {
        replay(21, "create c2 s2 t2 5; put s2 54 25; delete c2 drained; create c2 g1 t2 5; put g1 50 10");
    }

    /**
     * A channel deleted and created again under its name on the same stream, into the same table, resumed after the
     * first channel's positions: it delivered the records put while no channel of the name existed (SPEC S2: only
     * records after it is ACTIVE). Found by the model on the first sequence written by hand to try it (50
     * violations: the 50 records of the gap delivered), kept as it failed; fixed in the convert stage
     * (docs/DESIGN.md "The table is the checkpoint").
     */
    @Test
    void aChannelCreatedAgainOnTheSameStreamDeliversNothingPutWhileItWasGone() throws Exception {
        replay(0, "create c1 s1 t1 1; put s1 50 10; delete c1 drained; put s1 50 10; create c1 s1 t1 1; put s1 50 10");
    }

    private static void replay(long seed, String steps) throws Exception {
        ExploreRun.Outcome outcome = ExploreRun.run(ExploreTarget.ALL_IN_ONE, seed, ExploreStep.parseAll(steps));
        System.out.println("explore regression " + outcome);
        assertFalse(outcome.failed(), outcome + "\nlog:\n" + outcome.log());
    }
}
