package io.streamtables.tasks;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jboss.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RepeatingTest {

    private static final Logger LOG = Logger.getLogger(RepeatingTest.class);
    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        executor.shutdownNow();
    }

    /** A plain scheduled task ran once here: the exception of its first run cancelled the rest. */
    @Test
    void aTaskThatThrowsRunsAgain() throws InterruptedException {
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch fifth = new CountDownLatch(5);
        Repeating.withDelay(executor, 0, 10, LOG, "a test task", () -> {
            int n = runs.incrementAndGet();
            fifth.countDown();
            if (n == 1) {
                throw new IllegalStateException("Cannot read the channels in the service database");
            }
            if (n == 2) {
                throw new OutOfMemoryError("Java heap space");
            }
        });
        assertTrue(fifth.await(10, TimeUnit.SECONDS), "runs: " + runs.get());
    }

    @Test
    void aTaskAtAFixedRateRunsAgainToo() throws InterruptedException {
        CountDownLatch third = new CountDownLatch(3);
        Repeating.atRate(executor, 0, 10, LOG, "a test task", () -> {
            third.countDown();
            throw new IllegalStateException("renewing the leases failed");
        });
        assertTrue(third.await(10, TimeUnit.SECONDS));
    }
}
