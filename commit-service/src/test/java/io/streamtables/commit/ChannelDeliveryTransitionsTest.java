package io.streamtables.commit;

import static io.streamtables.commit.CommitFixture.MANIFESTS;
import static io.streamtables.commit.CommitFixture.SHARD;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.bus.DlqBatch;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** When a channel's delivery has work, and how its failed attempts wait: its transitions one by one. */
class ChannelDeliveryTransitionsTest {

    private static final int FRESHNESS_SECONDS = 1;

    @TempDir
    Path dir;

    private CommitFixture f;
    private final List<DlqBatch> dlq = new ArrayList<>();
    private final AtomicLong clock = new AtomicLong(System.currentTimeMillis());
    private ChannelDelivery d;

    @BeforeEach
    void setUp() {
        f = new CommitFixture(dir);
        d = new ChannelDelivery(f.channel, f.catalog.loadTable(f.channel.table()), f.buffer(), dlq::addAll, MANIFESTS,
                clock::get);
    }

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    private long now() {
        return clock.get();
    }

    /** The freshness after the buffer took its first rows (which arrived in the stream at no known time). */
    private void freshnessLater() {
        clock.set(System.currentTimeMillis() + FRESHNESS_SECONDS * 1_000L);
    }

    @Test
    void aBufferDueIsCutOnceAndTheCutCommitsBeforeTheNext() {
        assertFalse(d.due(now(), FRESHNESS_SECONDS), "nothing buffered");
        d.append(f.chunk(null, 1, 5));
        freshnessLater();
        assertTrue(d.cutDue(now(), FRESHNESS_SECONDS));
        assertTrue(d.due(now(), FRESHNESS_SECONDS));

        assertTrue(d.cut());
        assertEquals(5, d.pending().rows());
        d.append(f.chunk("5", 6, 8));
        assertFalse(d.cutDue(now(), FRESHNESS_SECONDS), "the next cut waits until this one committed");
        assertTrue(d.due(now(), FRESHNESS_SECONDS), "the commit is due");
        assertFalse(d.settled());

        assertTrue(d.commit());
        assertNull(d.pending());
        assertTrue(d.settled());
        freshnessLater();
        assertTrue(d.cutDue(now(), FRESHNESS_SECONDS), "the rows buffered meanwhile");
        assertTrue(d.cut());
        assertTrue(d.commit());
        assertEquals(Map.of(SHARD, "8"), f.watermarks());
        assertFalse(d.due(now(), FRESHNESS_SECONDS), "all committed, the sweep not due");
        assertTrue(d.due(now() + ChannelDelivery.SWEEP_MS, FRESHNESS_SECONDS), "a minute on, the sweep");
    }

    @Test
    void failedAttemptsWaitLongerEachTimeUntilOneSucceeds() {
        d.append(f.chunk(null, 1, 5));
        d.cut();
        long first = d.failed();
        assertTrue(first >= 500 && first <= 1_000, "the first wait: " + first);
        assertEquals(now() + first, d.retryAt());
        assertFalse(d.retryDue(now()));
        assertFalse(d.due(now(), FRESHNESS_SECONDS), "the cut waits for its retry");
        assertTrue(d.due(now() + first, FRESHNESS_SECONDS));

        long second = d.failed();
        assertTrue(second >= 1_000 && second <= 2_000, "the second wait: " + second);
        assertEquals(4_000, d.retryBound());

        clock.addAndGet(second);
        assertTrue(d.retryDue(now()));
        assertTrue(d.commit());
        d.delivered();
        assertEquals(1_000, d.retryBound(), "a success: the next failure waits the least again");
    }

    @Test
    void aFailedEvolutionIsTriedAgainAfterItsWaitWhileCutsGoOn() {
        d.waitToEvolve(f.table.schema());
        assertTrue(d.evolveDue(now()));
        long failedAt = now();
        long wait = d.evolveFailed();
        assertFalse(d.evolveDue(now()));
        assertTrue(d.waitsToEvolve(), "still waiting");
        d.append(f.chunk(null, 1, 5));
        freshnessLater();
        assertTrue(d.cutDue(now(), FRESHNESS_SECONDS), "cuts go on meanwhile");
        assertFalse(d.evolveDue(failedAt + wait - 1));
        assertTrue(d.evolveDue(failedAt + wait));

        assertEquals(List.of(), d.evolve(), "the table has the schema already");
        assertFalse(d.waitsToEvolve());
        assertFalse(d.evolveDue(Long.MAX_VALUE));
    }

    @Test
    void finishingDeliversUntilSettled() throws InterruptedException {
        d.append(f.chunk(null, 1, 5));
        d.cut();
        AtomicInteger attempts = new AtomicInteger();
        assertTrue(d.finish(now() + 60_000, () -> true, () -> {
            if (attempts.incrementAndGet() < 3) {
                d.failed();
                clock.set(d.retryAt()); // as if the wait passed
            } else {
                assertTrue(d.commit());
            }
        }));
        assertEquals(3, attempts.get(), "two failures, then the commit");
        assertTrue(d.settled());
        assertEquals(Map.of(SHARD, "5"), f.watermarks());
    }

    @Test
    void finishingStopsBeforeAWaitPastTheDeadlineOrWhenTheChannelIsGone() throws InterruptedException {
        d.append(f.chunk(null, 1, 5));
        d.cut();
        AtomicInteger attempts = new AtomicInteger();
        Runnable failing = () -> {
            attempts.incrementAndGet();
            d.failed();
            clock.set(d.retryAt());
        };
        // waits of 1, 2, 4 s at most: the third attempt's wait would pass a deadline 5 s away
        assertFalse(d.finish(now() + 5_000, () -> true, failing));
        assertTrue(attempts.get() >= 1 && attempts.get() <= 3, "attempts: " + attempts.get());
        assertNotNull(d.pending(), "left for drop");

        attempts.set(0);
        assertFalse(d.finish(now() + 600_000, () -> false, failing), "the channel is gone");
        assertEquals(0, attempts.get());
    }

    @Test
    void aDroppedDeliveryLeavesNothingToCommit() {
        d.append(f.chunk(null, 1, 5));
        d.cut();
        d.append(f.chunk("5", 6, 8));
        d.drop();
        assertTrue(d.settled());
        assertFalse(d.due(now(), FRESHNESS_SECONDS), "nothing buffered, nothing pending");
        assertEquals(List.of(), f.ids());
    }
}
