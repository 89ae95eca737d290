package io.streamtables.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ReadPaceTest {

    @Test
    void behindItAsksForTheFullLimitEvery200Ms() {
        ReadPace pace = new ReadPace(10_000, () -> 300);
        assertEquals(10_000, pace.limit(), "the first call");
        assertEquals(200, pace.waitMs());
        pace.answered(10_000, 0L);
        assertEquals(10_000, pace.limit(), "a full answer: more is waiting");
        pace.answered(0, 5_000L);
        assertEquals(200, pace.waitMs(), "an empty answer 5 s behind the tip: a gap in the shard, not its end");
    }

    @Test
    void caughtUpItAsksForLessAndWhileTheShardStaysEmptyLessAndLessOften() {
        ReadPace pace = new ReadPace(10_000, () -> 300);
        pace.answered(3, 0L);
        assertEquals(ReadPace.CAUGHT_UP_LIMIT, pace.limit());
        assertEquals(500, pace.waitMs(), "a trickle: twice a second");
        pace.answered(0, 0L);
        assertEquals(500, pace.waitMs());
        pace.answered(0, 0L);
        assertEquals(1_000, pace.waitMs());
        for (int i = 0; i < 100; i++) {
            pace.answered(0, 0L);
        }
        assertEquals(ReadPace.MAX_IDLE_WAIT_MS, pace.waitMs(), "an idle shard");
        pace.answered(1, 0L);
        assertEquals(500, pace.waitMs(), "a record: twice a second again");
    }

    @Test
    void aChannelOfShortFreshnessPausesAtMostATwentiethOfItsInterval() {
        ReadPace tenSeconds = new ReadPace(10_000, () -> 10);
        ReadPace oneSecond = new ReadPace(10_000, () -> 1);
        ReadPace thirtySeconds = new ReadPace(10_000, () -> 30);
        for (int i = 0; i < 10; i++) {
            tenSeconds.answered(0, 0L);
            oneSecond.answered(0, 0L);
            thirtySeconds.answered(0, 0L);
        }
        assertEquals(500, tenSeconds.waitMs());
        assertEquals(500, oneSecond.waitMs(), "never more often than twice a second once caught up");
        assertEquals(1_500, thirtySeconds.waitMs());
    }

    @Test
    void itPausesAsTheIntervalUpdateChannelSetLast() {
        AtomicInteger freshness = new AtomicInteger(300);
        ReadPace pace = new ReadPace(10_000, freshness::get);
        for (int i = 0; i < 10; i++) {
            pace.answered(0, 0L);
        }
        assertEquals(ReadPace.MAX_IDLE_WAIT_MS, pace.waitMs(), "an idle shard of a channel at 300 s");
        freshness.set(10);
        assertEquals(500, pace.waitMs(), "the same reader once the channel's interval is 10 s: a twentieth of it");
    }

    @Test
    void anAnswerAsFullAsTheCaughtUpLimitPutsItBackAtTheFullRate() {
        ReadPace pace = new ReadPace(10_000, () -> 300);
        pace.answered(0, 0L);
        pace.answered(ReadPace.CAUGHT_UP_LIMIT, 0L);
        assertEquals(10_000, pace.limit());
        assertEquals(200, pace.waitMs());
    }

    @Test
    void withoutMillisBehindOnlyAnEmptyAnswerMeansCaughtUp() {
        ReadPace pace = new ReadPace(100, () -> 300);
        pace.answered(40, null);
        assertEquals(200, pace.waitMs());
        pace.answered(0, null);
        assertEquals(500, pace.waitMs());
        assertEquals(100, pace.limit(), "never above the configured limit");
    }
}
