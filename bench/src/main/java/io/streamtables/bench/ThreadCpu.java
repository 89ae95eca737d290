package io.streamtables.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * CPU time of a process by kind of thread, from /proc/PID/task/TID/stat (utime + stime, clock ticks of 10 ms):
 * garbage collection, JIT compilers, the shard threads (ingest, convert and the buffer append run there), the
 * commit ticker (cuts and commits), the bus's Kafka clients, and the rest.
 */
final class ThreadCpu {

    private ThreadCpu() {
    }

    static Map<String, Long> snapshot(long pid) {
        Map<String, Long> ticks = new HashMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    String stat = Files.readString(t.resolve("stat"));
                    int open = stat.indexOf('(');
                    int close = stat.lastIndexOf(')');
                    String name = stat.substring(open + 1, close);
                    String[] f = stat.substring(close + 2).split(" ");
                    long cpu = Long.parseLong(f[11]) + Long.parseLong(f[12]);
                    ticks.merge(group(name), cpu, Long::sum);
                } catch (IOException | RuntimeException gone) {
                    // the thread ended
                }
            }
        } catch (IOException e) {
            // not Linux
        }
        return ticks;
    }

    static String group(String name) {
        if (name.startsWith("GC Thread") || name.startsWith("G1 ")) {
            return "gc";
        }
        if (name.startsWith("C1 Compiler") || name.startsWith("C2 Compiler")) {
            return "jit";
        }
        if (name.startsWith("shard-")) {
            return "shard threads (read, convert, append)";
        }
        if (name.equals("main") || name.equals("java")) {
            return "main (the scenario)";
        }
        if (name.equals("maintenance")) {
            return "maintenance";
        }
        if (name.startsWith("commit-ticker") || name.startsWith("commit-worker")) {
            return "commit ticker (cut, commit)";
        }
        if (name.startsWith("kafka-") || name.startsWith("smallrye-kafka") || name.startsWith("vert.x-eventloop")) {
            return "kafka (its clients; vert.x's event loops, which also run its connector)";
        }
        return "other";
    }

    /** Seconds per group between two snapshots. */
    static Map<String, Double> delta(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Double> out = new TreeMap<>();
        after.forEach((k, v) -> out.put(k, (v - before.getOrDefault(k, 0L)) / 100.0));
        return out;
    }
}
