package io.streamtables.ingest;

import java.util.function.IntSupplier;

/**
 * How often and how much a shard reader asks GetRecords for: at the shard's full rate (a call every 200 ms, the
 * configured limit) while it is behind; once caught up, a smaller limit and, while the shard stays empty, ever longer
 * pauses, up to a twentieth of the channel's freshness interval and at most {@link #MAX_IDLE_WAIT_MS}: an idle shard
 * of a channel at the default interval costs a call every 2 s instead of five a second, and a record arriving on it
 * waits at most that long to be read (freshness counts from its arrival). The interval is read at each pause:
 * UpdateChannel changes it without a restart (SPEC C5). The first answer that is full or behind puts the reader back
 * at the full rate.
 */
final class ReadPace {

    /** Between the starts of two GetRecords calls: a shard allows 5 calls a second. */
    static final long MIN_CALL_INTERVAL_MS = 200;
    /** A reader that just caught up polls twice a second: within a shard's 5 calls/s for two channels. */
    static final long IDLE_WAIT_MS = 500;
    /** The longest pause of a reader whose shard stays empty, at freshness intervals of 40 s and more. */
    static final long MAX_IDLE_WAIT_MS = 2_000;
    /** The limit of a caught-up reader's calls: an answer this full means it is behind again. */
    static final int CAUGHT_UP_LIMIT = 500;

    private final int fullLimit;
    private final IntSupplier freshnessSeconds;
    private boolean caughtUp;
    /** Empty answers in a row since the reader caught up. */
    private int empty;

    /** @param freshnessSeconds the channel's freshness interval now */
    ReadPace(int fullLimit, IntSupplier freshnessSeconds) {
        this.fullLimit = fullLimit;
        this.freshnessSeconds = freshnessSeconds;
    }

    /** Takes an answer: how many records it held and how far behind the shard's tip it was (null: not said). */
    void answered(int records, Long millisBehind) {
        boolean atTip = millisBehind == null ? records == 0 : millisBehind == 0;
        caughtUp = atTip && records < limit();
        empty = caughtUp && records == 0 ? empty + 1 : 0;
    }

    /** The limit of the next call. */
    int limit() {
        return caughtUp ? Math.min(CAUGHT_UP_LIMIT, fullLimit) : fullLimit;
    }

    /** The time between the start of the last call and the next one. */
    long waitMs() {
        if (!caughtUp) {
            return MIN_CALL_INTERVAL_MS;
        }
        long wait = IDLE_WAIT_MS << Math.min(Math.max(empty - 1, 0), 8);
        long longest = Math.max(IDLE_WAIT_MS, Math.min(MAX_IDLE_WAIT_MS, freshnessSeconds.getAsInt() * 1000L / 20));
        return Math.min(wait, longest);
    }
}
