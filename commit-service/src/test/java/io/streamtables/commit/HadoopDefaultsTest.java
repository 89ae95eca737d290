package io.streamtables.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class HadoopDefaultsTest {

    @Test
    void aConfigurationMadeWithinReadsTheSameDefaultsFromMemory() {
        Map<String, String> outside = properties(new Configuration());
        AtomicReference<Map<String, String>> inside = new AtomicReference<>();
        AtomicReference<String> served = new AtomicReference<>();
        HadoopDefaults.run(() -> {
            served.set(Thread.currentThread().getContextClassLoader().getResource(HadoopDefaults.RESOURCE)
                    .getProtocol());
            inside.set(properties(new Configuration()));
        });
        assertEquals("memory", served.get(), "Hadoop's defaults are not read from their jar again");
        assertTrue(outside.size() > 100, "Hadoop's defaults: " + outside.size());
        assertEquals(outside, inside.get());
    }

    @Test
    void theThreadGetsItsOwnLoaderBackEvenWhenTheActionFails() {
        ClassLoader before = Thread.currentThread().getContextClassLoader();
        try {
            HadoopDefaults.run(() -> {
                throw new IllegalStateException("a write failed");
            });
        } catch (IllegalStateException expected) {
            // the failure is the caller's
        }
        assertSame(before, Thread.currentThread().getContextClassLoader());
    }

    private static Map<String, String> properties(Configuration conf) {
        Map<String, String> all = new TreeMap<>();
        conf.forEach(e -> all.put(e.getKey(), e.getValue()));
        return all;
    }
}
