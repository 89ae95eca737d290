package io.streamtables.tasks;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Waits between retries that double from a first to a cap, each drawn at random from the upper half of its bound
 * ("equal jitter"): instances that failed together (a peer went away under all of them) do not all retry at the
 * same instant, and a wait is never shorter than half its bound. One per retrying loop; not thread-safe.
 */
public final class Backoff {

    private final long firstMillis;
    private final long maxMillis;
    private long bound;

    public Backoff(long firstMillis, long maxMillis) {
        if (firstMillis < 1 || maxMillis < firstMillis) {
            throw new IllegalArgumentException("back-off from " + firstMillis + " ms to " + maxMillis + " ms");
        }
        this.firstMillis = firstMillis;
        this.maxMillis = maxMillis;
        this.bound = firstMillis;
    }

    /** The wait before the next attempt; the bound of the one after it doubles, up to the cap. */
    public long next() {
        long wait = bound - ThreadLocalRandom.current().nextLong(bound / 2 + 1);
        bound = Math.min(bound * 2, maxMillis);
        return wait;
    }

    /** The longest the next wait can be. */
    public long bound() {
        return bound;
    }

    /** After a success: the next failure waits about the first wait again. */
    public void reset() {
        bound = firstMillis;
    }
}
