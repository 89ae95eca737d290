package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;

/**
 * The explorer ({@link ExplorePlan}, {@link ExploreRun}, {@link ExploreModel}) in CI: a few fixed seeds, each run
 * printing its steps. Elsewhere, by system property: {@code -Dexplore.seed=N} replays one seed (with
 * {@code -Dexplore.shrink=true}, shrinks it when it fails; {@code -Dexplore.length} steps, 8 by default),
 * {@code -Dexplore.steps="create c1 s1 t1 1; put s1 50 10; ..."} runs those steps, {@code -Dexplore.seconds=N} runs
 * new seeds for as long (bench/run.sh --only=explore), writing each failing seed and its shortest failing steps
 * ({@link ExploreShrink}) to {@code -Dexplore.out} (default target/explore). deploy/distributed's
 * {@code DistributedExplorerIT} does the same against the services as separate processes.
 */
class ExplorerIT {

    /** Seeds that draw every kind of step between them ({@code ExplorePlanTest}); 8 steps and the closing puts each. */
    static final long[] SEEDS = {21, 32, 41, 9, 24};
    static final int LENGTH = 8;

    @Test
    void theServiceDoesWhatTheModelSays() throws Exception {
        explore(ExploreTarget.ALL_IN_ONE, SEEDS);
    }

    /** The fixed seeds, or what the system properties ask for, against targets of the kind; fails on a violation. */
    static void explore(ExploreTarget.Kind kind, long[] seeds) throws Exception {
        List<ExploreRun.Outcome> failed = new ArrayList<>();
        String steps = System.getProperty("explore.steps");
        long seconds = Long.getLong("explore.seconds", 0);
        if (steps != null) {
            failed.addAll(report(ExploreRun.run(kind, Long.getLong("explore.seed", 0), ExploreStep.parseAll(steps))));
        } else if (System.getProperty("explore.seed") != null) {
            long seed = Long.getLong("explore.seed");
            ExploreRun.Outcome outcome = ExploreRun.run(kind, seed, ExplorePlan.of(seed,
                    Integer.getInteger("explore.length", LENGTH)));
            failed.addAll(report(outcome));
            if (outcome.failed() && Boolean.getBoolean("explore.shrink")) {
                System.out.println("explore shortest: " + ExploreShrink.shrink(kind, outcome, Long.MAX_VALUE));
            }
        } else if (seconds > 0) {
            explore(kind, seconds, failed);
        } else {
            for (long seed : seeds) {
                failed.addAll(report(ExploreRun.run(kind, seed, ExplorePlan.of(seed, LENGTH))));
            }
        }
        assertTrue(failed.isEmpty(), failed.size() + " runs broke the model; the first:\n" + (failed.isEmpty() ? ""
                : failed.get(0) + "\nlog:\n" + failed.get(0).log()));
    }

    /** New seeds until the time is up; each failing one shrunk and written down. */
    private static void explore(ExploreTarget.Kind kind, long seconds, List<ExploreRun.Outcome> failed)
            throws Exception {
        Path out = Path.of(System.getProperty("explore.out", "target/explore"));
        Files.createDirectories(out);
        int length = Integer.getInteger("explore.length", 12);
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        List<Long> passed = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            long seed = ThreadLocalRandom.current().nextLong(1_000_000_000L);
            ExploreRun.Outcome outcome = ExploreRun.run(kind, seed, ExplorePlan.of(seed, length));
            report(outcome);
            if (!outcome.failed()) {
                passed.add(seed);
                continue;
            }
            failed.add(outcome);
            ExploreRun.Outcome shortest = ExploreShrink.shrink(kind, outcome, deadline);
            Files.writeString(out.resolve("seed-" + seed + ".txt"), outcome + "\n\nshortest failing steps:\n"
                    + ExploreStep.format(shortest.steps()) + "\n" + shortest + "\n\nlog:\n" + outcome.log());
        }
        Files.writeString(out.resolve("summary.txt"), Instant.now() + ": " + (passed.size() + failed.size())
                + " seeds of " + length + " steps in " + seconds + " s; failed: "
                + failed.stream().map(o -> Long.toString(o.seed())).toList() + "; passed: " + passed + "\n");
    }

    private static List<ExploreRun.Outcome> report(ExploreRun.Outcome outcome) {
        System.out.println("explore " + outcome);
        return outcome.failed() ? List.of(outcome) : List.of();
    }
}
