package io.streamtables.tasks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.health.RepeatingTasksLiveness;
import java.time.Duration;
import org.eclipse.microprofile.health.HealthCheckResponse;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RepeatingTest {

    private static final Logger LOG = Logger.getLogger(RepeatingTest.class);
    private final List<Repeating> tasks = new ArrayList<>();

    @AfterEach
    void stop() {
        tasks.forEach(Repeating::stop);
    }

    /** A plain scheduled task ran once here: the exception of its first run cancelled the rest. */
    @Test
    void aTaskThatThrowsRunsAgain() throws InterruptedException {
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch fifth = new CountDownLatch(5);
        tasks.add(Repeating.withDelay("test-task", 0, 10, LOG, "a test task", () -> {
            int n = runs.incrementAndGet();
            fifth.countDown();
            if (n == 1) {
                throw new IllegalStateException("Cannot read the channels in the service database");
            }
            if (n == 2) {
                throw new OutOfMemoryError("Java heap space");
            }
        }));
        assertTrue(fifth.await(10, TimeUnit.SECONDS), "runs: " + runs.get());
    }

    @Test
    void aTaskAtAFixedRateRunsAgainToo() throws InterruptedException {
        CountDownLatch third = new CountDownLatch(3);
        tasks.add(Repeating.atRate("test-task", 0, 10, LOG, "a test task", () -> {
            third.countDown();
            throw new IllegalStateException("renewing the leases failed");
        }));
        assertTrue(third.await(10, TimeUnit.SECONDS));
    }

    /**
     * A run that blocks (a call a half-open connection never answers) fails liveness once it is past the bound, and
     * liveness is UP again when it ends. Before, the blocked ticker left liveness UP.
     */
    @Test
    void aRunBlockedPastTheBoundFailsLiveness() throws InterruptedException {
        RepeatingTasksLiveness liveness = new RepeatingTasksLiveness(Duration.ofMillis(200));
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch answer = new CountDownLatch(1);
        tasks.add(Repeating.withDelay("test-task", 0, 10, LOG, "The blocked tick", () -> {
            started.countDown();
            try {
                answer.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }));
        assertTrue(started.await(10, TimeUnit.SECONDS));
        assertEquals(HealthCheckResponse.Status.UP, liveness.call().getStatus(), "within the bound");
        Thread.sleep(400);
        HealthCheckResponse down = liveness.call();
        assertEquals(HealthCheckResponse.Status.DOWN, down.getStatus());
        assertEquals("The blocked tick", down.getData().orElseThrow().get("task"));
        answer.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (liveness.call().getStatus() == HealthCheckResponse.Status.DOWN && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        // runs of 0 ms every 10 ms: a later one may be under way, never past the bound
        assertEquals(HealthCheckResponse.Status.UP, liveness.call().getStatus(), "after the answer");
    }

    /** Its thread is named for it, and once stopped it runs no more: the run under way ends, no other starts. */
    @Test
    void stoppedItRunsNoMore() throws InterruptedException {
        AtomicInteger runs = new AtomicInteger();
        List<String> threads = new ArrayList<>();
        CountDownLatch second = new CountDownLatch(2);
        Repeating task = Repeating.atRate("the-test-ticker", 0, 10, LOG, "a test task", () -> {
            runs.incrementAndGet();
            synchronized (threads) {
                threads.add(Thread.currentThread().getName());
            }
            second.countDown();
        });
        tasks.add(task);
        assertTrue(second.await(10, TimeUnit.SECONDS));
        assertTrue(task.stop(5_000), "the run under way ended");
        int after = runs.get();
        Thread.sleep(100);
        assertEquals(after, runs.get(), "no run after stop");
        synchronized (threads) {
            assertEquals(List.of("the-test-ticker"), threads.stream().distinct().toList());
        }
    }
}
