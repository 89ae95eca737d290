package io.streamtables.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;

class HadoopDefaultsTest {

    @Test
    void aConfigurationMadeWithinReadsHadoopsCoreDefaultsFromMemory() {
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
        outside.forEach((key, value) -> {
            if (key.startsWith("fs.") || key.startsWith("io.") || key.startsWith("hadoop.")) {
                assertEquals(value, inside.get().get(key), key); // the core defaults a writer may read, unchanged
            }
        });
    }

    /**
     * Once a class registers MapReduce's defaults (JobConf does, when loaded), every Configuration parses their 85 KB
     * too; a Parquet writer reads none of their keys, so within they are empty. Fails when they are read: expected
     * null, was "2" (mapreduce.job.maps).
     */
    @Test
    void theDefaultsOfMapReduceAndYarnAreEmptyWithin() {
        Configuration.addDefaultResource("mapred-default.xml");
        assertEquals("2", new Configuration().get("mapreduce.job.maps"), "MapReduce's defaults outside");
        AtomicReference<String> inside = new AtomicReference<>("unset");
        AtomicReference<String> yarn = new AtomicReference<>();
        HadoopDefaults.run(() -> {
            inside.set(new Configuration().get("mapreduce.job.maps"));
            yarn.set(Thread.currentThread().getContextClassLoader().getResource("yarn-default.xml").getProtocol());
        });
        assertNull(inside.get());
        assertEquals("memory", yarn.get());
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
