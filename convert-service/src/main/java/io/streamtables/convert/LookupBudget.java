package io.streamtables.convert;

import java.util.function.LongSupplier;

/**
 * How many version ids the registry does not hold one channel's records may have had looked up in the current
 * second ({@code delivery.schema-registry.misses-per-channel}): the convert stage takes every channel's chunks one at
 * a time, so a producer naming a new random version id in every record would hold the others' chunks behind its
 * lookups. Once they are spent, its records naming a version the stage has not met are dead letters until the
 * second ends, and only its own; versions the registry holds never spend any.
 */
final class LookupBudget {

    private final int perSecond;
    private final LongSupplier clock;
    private long second = Long.MIN_VALUE;
    private int misses;

    LookupBudget(int perSecond, LongSupplier clock) {
        this.perSecond = perSecond;
        this.clock = clock;
    }

    /** Whether this second's misses are all spent: the next unknown version is not asked for. */
    synchronized boolean spent() {
        roll();
        return misses >= perSecond;
    }

    /** A lookup found nothing. */
    synchronized void missed() {
        roll();
        misses++;
    }

    int perSecond() {
        return perSecond;
    }

    private void roll() {
        long now = clock.getAsLong() / 1000;
        if (now != second) {
            second = now;
            misses = 0;
        }
    }
}
