package io.streamtables.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.benmanes.caffeine.cache.Cache;
import org.junit.jupiter.api.Test;

class VersionCachesTest {

    @Test
    void aCacheHoldsAtMostItsCountAndItsBytes() {
        Cache<Integer, Long> byCount = new VersionCaches(10, 10_000).cache(bytes -> bytes);
        for (int i = 0; i < 100; i++) {
            byCount.put(i, 1L);
        }
        byCount.cleanUp();
        assertEquals(10, byCount.estimatedSize(), "small entries: the count bounds");

        Cache<Integer, Long> byBytes = new VersionCaches(10, 10_000).cache(bytes -> bytes);
        for (int i = 0; i < 100; i++) {
            byBytes.put(i, 3_000L);
        }
        byBytes.cleanUp();
        assertEquals(3, byBytes.estimatedSize(), "large entries: the bytes bound");
        assertTrue(byBytes.policy().eviction().orElseThrow().weightedSize().orElseThrow() <= 10_000);

        assertThrows(IllegalArgumentException.class, () -> new VersionCaches(0, 10));
    }

    /** A cleared map or an LRU list misses every time here: each entry is evicted just before it is asked again. */
    @Test
    void aCycleLargerThanTheCacheKeepsAStablePartCached() {
        Cache<Integer, Long> cache = new VersionCaches(100, 100 << 10).cache(bytes -> bytes);
        int builds = 0;
        int asks = 0;
        for (int round = 0; round < 40; round++) {
            for (int version = 0; version < 150; version++) {
                asks++;
                if (cache.getIfPresent(version) == null) {
                    builds++;
                    cache.put(version, 1L);
                }
            }
        }
        assertTrue(builds < asks / 2, builds + " builds for " + asks + " asks of 150 versions cycled, 100 cached");
    }
}
