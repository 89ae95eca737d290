package io.streamtables.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.tasks.Repeating;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class CommitWorkersTest {

    @Test
    void channelsCommitSideBySide() throws InterruptedException {
        CommitWorkers workers = new CommitWorkers(4);
        CountDownLatch together = new CountDownLatch(4);
        CountDownLatch done = new CountDownLatch(4);
        for (int i = 0; i < 4; i++) {
            assertTrue(workers.offer("channel-" + i, waitingForTheOthers(together, done)));
        }
        assertTrue(done.await(15, TimeUnit.SECONDS), "the four channels' steps ran at the same time");
        assertTrue(workers.stop(5_000));
    }

    @Test
    void theLastStepsAtShutdownRunSideBySide() throws InterruptedException {
        CommitWorkers workers = new CommitWorkers(4);
        assertTrue(workers.stop(5_000));
        CountDownLatch together = new CountDownLatch(4);
        CountDownLatch done = new CountDownLatch(4);
        workers.finish(IntStream.range(0, 4).mapToObj(i -> waitingForTheOthers(together, done)).toList());
        assertEquals(0, done.getCount(), "the four channels' last steps ran at the same time, and all ended");
    }

    /** A step that waits for three others to start: on one thread, none would get past it. */
    private static Runnable waitingForTheOthers(CountDownLatch together, CountDownLatch done) {
        return () -> {
            together.countDown();
            try {
                if (together.await(5, TimeUnit.SECONDS)) {
                    done.countDown();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
    }

    @Test
    void aChannelHasOneStepAtATime() throws InterruptedException {
        CommitWorkers workers = new CommitWorkers(4);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger runs = new AtomicInteger();
        assertTrue(workers.offer("channel", () -> {
            runs.incrementAndGet();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        assertTrue(workers.busy("channel"));
        awaitStarted(runs);
        assertEquals("The delivery step of channel", Repeating.longestRun().map(Repeating.Run::what).orElse(null),
                "a step under way is shown to the liveness check");
        assertFalse(workers.offer("channel", runs::incrementAndGet), "a second step while the first runs");
        assertFalse(workers.busy("another"));
        release.countDown();
        awaitIdle(workers, "channel");
        assertTrue(workers.offer("channel", runs::incrementAndGet), "the next step once the first ended");
        awaitIdle(workers, "channel");
        assertEquals(2, runs.get());
        assertTrue(workers.stop(5_000));
    }

    @Test
    void aFailingStepFreesItsChannel() throws InterruptedException {
        CommitWorkers workers = new CommitWorkers(1);
        assertTrue(workers.offer("channel", () -> {
            throw new IllegalStateException("the catalog is down");
        }));
        awaitIdle(workers, "channel");
        ConcurrentHashMap<String, Boolean> ran = new ConcurrentHashMap<>();
        assertTrue(workers.offer("channel", () -> ran.put("channel", true)));
        awaitIdle(workers, "channel");
        assertEquals(Boolean.TRUE, ran.get("channel"));
        assertTrue(workers.stop(5_000));
    }

    @Test
    void noStepIsTakenOnceStopped() throws InterruptedException {
        CommitWorkers workers = new CommitWorkers(2);
        assertTrue(workers.stop(5_000));
        assertFalse(workers.offer("channel", () -> { }));
        assertFalse(workers.busy("channel"), "a refused step leaves its channel free");
    }

    private static void awaitStarted(AtomicInteger runs) throws InterruptedException {
        await(() -> runs.get() > 0, "the step never started");
    }

    private static void awaitIdle(CommitWorkers workers, String key) throws InterruptedException {
        await(() -> !workers.busy(key), key + " still busy");
    }

    private static void await(BooleanSupplier done, String otherwise) throws InterruptedException {
        long until = System.currentTimeMillis() + 10_000;
        while (!done.getAsBoolean() && System.currentTimeMillis() < until) {
            Thread.sleep(5);
        }
        assertTrue(done.getAsBoolean(), otherwise);
    }
}
