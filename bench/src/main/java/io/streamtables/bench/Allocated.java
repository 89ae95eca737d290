package io.streamtables.bench;

import java.util.HashMap;
import java.util.Map;

/**
 * Heap bytes allocated by the threads of a JVM between two snapshots (HotSpot's per-thread counters; a thread
 * that ends in between takes its bytes with it). What a row allocates is what the young collections must sweep.
 */
final class Allocated {

    private Allocated() {
    }

    static Map<Long, Long> snapshot(com.sun.management.ThreadMXBean threads) {
        long[] ids = threads.getAllThreadIds();
        long[] bytes = threads.getThreadAllocatedBytes(ids);
        Map<Long, Long> out = new HashMap<>();
        for (int i = 0; i < ids.length; i++) {
            if (bytes[i] >= 0) {
                out.put(ids[i], bytes[i]);
            }
        }
        return out;
    }

    static long delta(Map<Long, Long> before, Map<Long, Long> after) {
        long sum = 0;
        for (Map.Entry<Long, Long> e : after.entrySet()) {
            sum += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        return sum;
    }
}
