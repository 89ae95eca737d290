package io.streamtables.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ReaderPoolTest {

    private final ReaderPool pool = new ReaderPool(2, "shard-test");

    @AfterEach
    void stop() {
        pool.stop(1_000);
    }

    @Test
    void aThousandReadersShareTwoThreadsAndEachStepsAtItsOwnPace() throws Exception {
        int readers = 1_000;
        CountDownLatch ended = new CountDownLatch(readers);
        Set<String> threads = ConcurrentHashMap.newKeySet();
        AtomicInteger overlaps = new AtomicInteger();
        List<AtomicInteger> steps = new ArrayList<>();
        for (int i = 0; i < readers; i++) {
            AtomicInteger done = new AtomicInteger();
            AtomicBoolean inStep = new AtomicBoolean();
            steps.add(done);
            pool.start("reader " + i, () -> {
                if (!inStep.compareAndSet(false, true)) {
                    overlaps.incrementAndGet();
                }
                threads.add(Thread.currentThread().getName());
                int n = done.incrementAndGet();
                inStep.set(false);
                return n < 5 ? 20 : ReaderPool.DONE; // five steps, 20 ms apart
            }, ended::countDown);
        }
        assertTrue(ended.await(30, TimeUnit.SECONDS), "every reader ended: " + ended.getCount() + " left");
        steps.forEach(s -> assertEquals(5, s.get()));
        assertEquals(0, overlaps.get(), "the steps of one reader never overlap");
        assertTrue(threads.size() <= 2, "threads: " + threads);
    }

    @Test
    void theNextStepWaitsTheDelayTheLastReturned() throws Exception {
        List<Long> at = new ArrayList<>();
        CountDownLatch ended = new CountDownLatch(1);
        pool.start("reader", () -> {
            at.add(System.nanoTime());
            return at.size() < 3 ? 300 : ReaderPool.DONE;
        }, ended::countDown);
        assertTrue(ended.await(5, TimeUnit.SECONDS));
        assertEquals(3, at.size());
        for (int i = 1; i < at.size(); i++) {
            long gap = TimeUnit.NANOSECONDS.toMillis(at.get(i) - at.get(i - 1));
            assertTrue(gap >= 300, "gap " + i + ": " + gap + " ms");
        }
    }

    @Test
    void aReaderCancelledBetweenStepsStepsNoMoreAndEndsOnce() throws Exception {
        AtomicInteger steps = new AtomicInteger();
        AtomicInteger ends = new AtomicInteger();
        CountDownLatch stepped = new CountDownLatch(1);
        ReaderPool.Reader reader = pool.start("reader", () -> {
            steps.incrementAndGet();
            stepped.countDown();
            return 10_000;
        }, ends::incrementAndGet);
        assertTrue(stepped.await(5, TimeUnit.SECONDS));
        Thread.sleep(200); // the step returns meanwhile: the cancel comes between steps
        reader.cancel();
        reader.cancel();
        assertTrue(reader.isDone());
        Thread.sleep(200);
        assertEquals(1, steps.get());
        assertEquals(1, ends.get());
    }

    @Test
    void aCancelInterruptsTheStepUnderWayAndTheReaderEndsWhenItReturns() throws Exception {
        CountDownLatch inStep = new CountDownLatch(1);
        CountDownLatch looked = new CountDownLatch(1);
        CountDownLatch ended = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        ReaderPool.Reader reader = pool.start("reader", () -> {
            inStep.countDown();
            try {
                Thread.sleep(10_000); // a GetRecords call, or a handing on that waits for the bus
            } catch (InterruptedException e) {
                interrupted.set(true);
                looked.await(5, TimeUnit.SECONDS); // still in the step after the cancel, until the test looked
                throw e;
            }
            return 0;
        }, ended::countDown);
        assertTrue(inStep.await(5, TimeUnit.SECONDS));
        reader.cancel();
        assertFalse(reader.isDone(), "not done while its step runs: another reader of the shard must not start");
        looked.countDown();
        assertTrue(ended.await(5, TimeUnit.SECONDS));
        assertTrue(interrupted.get());
        awaitDone(reader);
    }

    /** A reader is done only once its {@code whenDone} returned: a latch that {@code whenDone} opens is early. */
    private static void awaitDone(ReaderPool.Reader reader) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!reader.isDone() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertTrue(reader.isDone(), "done once whenDone returned");
    }

    @Test
    void aStepThatThrowsEndsItsReaderAndLeavesTheOthersRunning() throws Exception {
        CountDownLatch failedEnded = new CountDownLatch(1);
        AtomicInteger otherSteps = new AtomicInteger();
        pool.start("failing", () -> {
            throw new IllegalStateException("boom");
        }, failedEnded::countDown);
        pool.start("other", () -> otherSteps.incrementAndGet() < 1_000 ? 1 : ReaderPool.DONE, () -> { });
        assertTrue(failedEnded.await(5, TimeUnit.SECONDS));
        Thread.sleep(300);
        assertTrue(otherSteps.get() > 10, "the other reader steps on: " + otherSteps.get());
    }
}
