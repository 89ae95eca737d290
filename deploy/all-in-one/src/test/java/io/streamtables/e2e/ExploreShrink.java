package io.streamtables.e2e;

import java.util.ArrayList;
import java.util.List;

/**
 * Reduces a failing exploration to a shorter sequence that still fails: steps are left out one at a time, from the
 * last to the first, and a leaving out is kept when the run without the step still breaks the model. What is left is
 * the sequence to keep as a named test ({@code ExplorerRegressionIT}). A leaving out that makes the sequence one the
 * plan could not draw ({@link ExploreStep#wellFormed}) is not tried. Each try is a whole run, a minute or two.
 */
final class ExploreShrink {

    private ExploreShrink() {
    }

    /** The shortest failing run found before {@code deadlineNanos} (System.nanoTime()). */
    static ExploreRun.Outcome shrink(ExploreTarget.Kind kind, ExploreRun.Outcome failing, long deadlineNanos) throws Exception {
        ExploreRun.Outcome shortest = failing;
        boolean shorter = true;
        while (shorter && System.nanoTime() < deadlineNanos) {
            shorter = false;
            for (int n = shortest.steps().size() - 1; n >= 0 && System.nanoTime() < deadlineNanos; n--) {
                List<ExploreStep> without = new ArrayList<>(shortest.steps());
                without.remove(n);
                if (!ExploreStep.wellFormed(without)) {
                    continue; // a channel created twice, or deleted when it is not there: another test
                }
                ExploreRun.Outcome tried = ExploreRun.run(kind, failing.seed(), without);
                System.out.println("explore shrink: " + (tried.failed() ? "still fails" : "passes") + " without step "
                        + n + " of " + shortest.steps().size());
                if (tried.failed()) {
                    shortest = tried;
                    shorter = true;
                    break;
                }
            }
        }
        return shortest;
    }
}
