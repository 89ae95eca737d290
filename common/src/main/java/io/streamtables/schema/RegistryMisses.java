package io.streamtables.schema;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.LongSupplier;

/**
 * Version ids a registry said it does not hold, remembered for a while so that records naming one again are refused
 * without asking: ids are 128 random bits, a producer can name an unknown one in every record. Bounded: the oldest
 * is forgotten first.
 */
public final class RegistryMisses {

    static final long TTL_MILLIS = 30_000;
    static final int MAX_MISSES = 10_000;

    private final LongSupplier clock;
    /** Unknown version id → until when it is known to be unknown; oldest first. */
    private final Map<UUID, Long> misses = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<UUID, Long> eldest) {
            return size() > MAX_MISSES;
        }
    };

    public RegistryMisses(LongSupplier clock) {
        this.clock = clock;
    }

    /** Whether the registry said, less than {@link #TTL_MILLIS} ago, that it does not hold the version. */
    public synchronized boolean known(UUID versionId) {
        Long until = misses.get(versionId);
        return until != null && until > clock.getAsLong();
    }

    public synchronized void remember(UUID versionId) {
        misses.remove(versionId);
        misses.put(versionId, clock.getAsLong() + TTL_MILLIS);
    }
}
