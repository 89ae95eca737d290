package io.streamtables.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * What {@code jfr print --events jdk.ExecutionSample} shows, summed: the methods on top of the sampled stacks
 * (self time), the methods anywhere on them (total time), and the top frames by library.
 */
public final class JfrSummary {

    private JfrSummary() {
    }

    public static void main(String[] args) throws IOException {
        System.out.println(summarize(Path.of(args[0]), args.length > 1 ? Integer.parseInt(args[1]) : 25));
    }

    public static String summarize(Path jfr, int top) throws IOException {
        Map<String, Integer> self = new HashMap<>();
        Map<String, Integer> total = new HashMap<>();
        Map<String, Integer> library = new HashMap<>();
        Map<String, Integer> threads = new HashMap<>();
        int samples = 0;
        Map<String, Integer> allocTop = new HashMap<>();
        Map<String, Integer> allocOwn = new HashMap<>();
        long allocTotal = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
            if (e.getEventType().getName().equals("jdk.ObjectAllocationSample") && e.getStackTrace() != null
                    && !e.getStackTrace().getFrames().isEmpty()) {
                // weight: bytes allocated since the previous sample of the thread; counted in MB
                int mb = (int) Math.max(1, e.getLong("weight") >> 20);
                allocTotal += mb;
                List<RecordedFrame> frames = e.getStackTrace().getFrames();
                allocTop.merge(e.getClass("objectClass").getName() + " in " + name(frames.get(0)), mb, Integer::sum);
                for (RecordedFrame f : frames) {
                    String m = name(f);
                    if (!m.startsWith("java.") && !m.startsWith("jdk.") && !m.startsWith("sun.")) {
                        allocOwn.merge(m, mb, Integer::sum);
                        break;
                    }
                }
                continue;
            }
            if (!e.getEventType().getName().equals("jdk.ExecutionSample") || e.getStackTrace() == null) {
                continue;
            }
            List<RecordedFrame> frames = e.getStackTrace().getFrames();
            if (frames.isEmpty()) {
                continue;
            }
            samples++;
            String topMethod = name(frames.get(0));
            self.merge(topMethod, 1, Integer::sum);
            library.merge(library(topMethod), 1, Integer::sum);
            Set<String> seen = new HashSet<>();
            for (RecordedFrame f : frames) {
                String m = name(f);
                if (seen.add(m)) {
                    total.merge(m, 1, Integer::sum);
                }
            }
            String thread = e.getThread("sampledThread") == null ? "?" : e.getThread("sampledThread").getJavaName();
            threads.merge(thread == null ? "?" : thread.replaceAll("\\d+", "N"), 1, Integer::sum);
        }
        StringBuilder sb = new StringBuilder();
        sb.append("jdk.ExecutionSample events: ").append(samples).append(" in ").append(jfr.getFileName()).append('\n');
        section(sb, "Top frames (self) by library", library, samples, top);
        section(sb, "Top frames (self)", self, samples, top);
        section(sb, "On the stack (total), io.streamtables and the libraries it calls", filter(total), samples, top);
        section(sb, "Sampled threads", threads, samples, 10);
        if (allocTotal > 0) {
            sb.append("\nAllocation (jdk.ObjectAllocationSample, weighted, ~").append(allocTotal).append(" MB sampled):\n");
            section(sb, "  by class and allocating frame (% of sampled bytes)", allocTop, (int) allocTotal, top);
            section(sb, "  by first non-JDK frame (% of sampled bytes)", allocOwn, (int) allocTotal, top);
        }
        return sb.toString();
    }

    public static void write(Path jfr, Path out) throws IOException {
        Files.writeString(out, summarize(jfr, 30));
    }

    private static Map<String, Integer> filter(Map<String, Integer> total) {
        Map<String, Integer> out = new HashMap<>();
        total.forEach((k, v) -> {
            if (!k.startsWith("java.") && !k.startsWith("jdk.") && !k.startsWith("sun.")
                    && !k.startsWith("io.smallrye") && !k.startsWith("io.vertx") && !k.startsWith("io.quarkus")
                    && !k.startsWith("org.jboss") && !k.startsWith("io.netty") && !k.startsWith("mutiny")) {
                out.put(k, v);
            }
        });
        return out;
    }

    private static void section(StringBuilder sb, String title, Map<String, Integer> counts, int samples, int top) {
        sb.append('\n').append(title).append(":\n");
        counts.entrySet().stream().sorted((a, b) -> b.getValue() - a.getValue()).limit(top)
                .forEach(e -> sb.append(String.format("  %5.1f%%  %6d  %s%n", 100.0 * e.getValue() / Math.max(1, samples),
                        e.getValue(), e.getKey())));
    }

    private static String name(RecordedFrame f) {
        return f.getMethod().getType().getName() + "." + f.getMethod().getName();
    }

    private static String library(String method) {
        String[][] prefixes = {
            {"org.apache.parquet", "parquet-java"}, {"shaded.parquet", "parquet-java"},
            {"com.github.luben.zstd", "zstd-jni"}, {"io.airlift.compress", "aircompressor"},
            {"org.apache.iceberg", "iceberg"}, {"com.fasterxml.jackson", "jackson"},
            {"com.networknt", "networknt json-schema"}, {"io.streamtables", "io.streamtables (this project)"},
            {"software.amazon", "aws-sdk"}, {"org.sqlite", "sqlite-jdbc"}, {"java.time", "java.time"},
            {"java.util.regex", "java.util.regex"}, {"java.math", "java.math"}, {"java.util", "java.util"},
            {"java.lang", "java.lang"}, {"java.", "java (other)"}, {"jdk.", "jdk"}, {"sun.", "jdk"},
            {"io.smallrye", "smallrye/mutiny"}, {"io.vertx", "vert.x"}, {"io.quarkus", "quarkus"},
            {"org.apache.hadoop", "hadoop"}};
        for (String[] p : prefixes) {
            if (method.startsWith(p[0])) {
                return p[1];
            }
        }
        return "other";
    }
}
