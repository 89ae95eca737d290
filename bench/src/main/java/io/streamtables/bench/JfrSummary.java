package io.streamtables.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongFunction;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * What {@code jfr print --events jdk.ExecutionSample} shows, summed: the methods on top of the sampled stacks
 * (self time), the methods anywhere on them (total time), and the top frames by library. Then allocation by site,
 * from the TLAB events ({@link #ALLOCATION_SETTINGS}): each new TLAB stands for its size, each object allocated outside
 * one for its own, so the bytes add up to what the threads allocated. (JFR's {@code ObjectAllocationSample} weights a
 * sample by what its thread allocated since its last one, and so credits a thread's whole allocation to whatever it
 * allocated last: a lock's node while the thread waits.) A TLAB credits all of its bytes to the object that opened it:
 * {@code -XX:TLABSize=16k -XX:-ResizeTLAB} (the bench's {@code --jvm}) makes the samples finer and equal.
 */
public final class JfrSummary {

    /** The events to add to JFR's {@code profile} settings for {@link #summarize}'s allocation by site. */
    public static final String ALLOCATION_SETTINGS = """
            <?xml version="1.0" encoding="UTF-8"?>
            <configuration version="2.0">
              <event name="jdk.ObjectAllocationInNewTLAB">
                <setting name="enabled">true</setting><setting name="stackTrace">true</setting>
              </event>
              <event name="jdk.ObjectAllocationOutsideTLAB">
                <setting name="enabled">true</setting><setting name="stackTrace">true</setting>
              </event>
            </configuration>
            """;

    private JfrSummary() {
    }

    public static void main(String[] args) throws IOException {
        System.out.println(summarize(Path.of(args[0]), args.length > 1 ? Integer.parseInt(args[1]) : 25));
    }

    /** Enables {@link #ALLOCATION_SETTINGS}' events in a recording of this JVM. */
    static void enableAllocation(Recording recording) {
        recording.enable("jdk.ObjectAllocationInNewTLAB").withStackTrace();
        recording.enable("jdk.ObjectAllocationOutsideTLAB").withStackTrace();
    }

    public static String summarize(Path jfr, int top) throws IOException {
        Map<String, Long> self = new HashMap<>();
        Map<String, Long> total = new HashMap<>();
        Map<String, Long> library = new HashMap<>();
        Map<String, Long> threads = new HashMap<>();
        long samples = 0;
        Map<String, Long> allocThreads = new HashMap<>();
        Map<String, Long> allocTop = new HashMap<>();
        Map<String, Long> allocOwn = new HashMap<>();
        long allocated = 0;
        for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
            String type = e.getEventType().getName();
            if (e.getStackTrace() == null || e.getStackTrace().getFrames().isEmpty()) {
                continue;
            }
            List<RecordedFrame> frames = e.getStackTrace().getFrames();
            if (type.equals("jdk.ObjectAllocationInNewTLAB") || type.equals("jdk.ObjectAllocationOutsideTLAB")) {
                String thread = thread(e.getThread());
                long bytes = e.getLong(type.endsWith("InNewTLAB") ? "tlabSize" : "allocationSize");
                allocated += bytes;
                allocThreads.merge(thread, bytes, Long::sum);
                allocTop.merge(e.getClass("objectClass").getName() + " in " + name(frames.get(0)), bytes, Long::sum);
                String own = frames.stream().map(JfrSummary::name).filter(m -> m.startsWith("io.streamtables"))
                        .findFirst().orElse("(none of this project's)");
                allocOwn.merge(thread + ": " + own, bytes, Long::sum);
                continue;
            }
            if (!type.equals("jdk.ExecutionSample")) {
                continue;
            }
            samples++;
            String topMethod = name(frames.get(0));
            self.merge(topMethod, 1L, Long::sum);
            library.merge(library(topMethod), 1L, Long::sum);
            Set<String> seen = new HashSet<>();
            for (RecordedFrame f : frames) {
                String m = name(f);
                if (seen.add(m)) {
                    total.merge(m, 1L, Long::sum);
                }
            }
            threads.merge(thread(e.getThread("sampledThread")), 1L, Long::sum);
        }
        StringBuilder sb = new StringBuilder();
        sb.append("jdk.ExecutionSample events: ").append(samples).append(" in ").append(jfr.getFileName()).append('\n');
        section(sb, "Top frames (self) by library", library, samples, top);
        section(sb, "Top frames (self)", self, samples, top);
        section(sb, "On the stack (total), io.streamtables and the libraries it calls", filter(total), samples, top);
        section(sb, "Sampled threads", threads, samples, 10);
        if (allocated > 0) {
            sb.append(String.format("%nAllocation (new TLABs and objects outside them): %.1f MB%n", allocated / 1e6));
            LongFunction<String> mb = bytes -> String.format("%.1f MB", bytes / 1e6);
            section(sb, "  by thread", allocThreads, allocated, 10, mb);
            section(sb, "  by class and allocating frame", allocTop, allocated, top, mb);
            section(sb, "  by thread and first frame of this project", allocOwn, allocated, top, mb);
        }
        return sb.toString();
    }

    public static void write(Path jfr, Path out) throws IOException {
        Files.writeString(out, summarize(jfr, 30));
    }

    private static Map<String, Long> filter(Map<String, Long> total) {
        Map<String, Long> out = new HashMap<>();
        total.forEach((k, v) -> {
            if (!k.startsWith("java.") && !k.startsWith("jdk.") && !k.startsWith("sun.")
                    && !k.startsWith("io.smallrye") && !k.startsWith("io.vertx") && !k.startsWith("io.quarkus")
                    && !k.startsWith("org.jboss") && !k.startsWith("io.netty") && !k.startsWith("mutiny")) {
                out.put(k, v);
            }
        });
        return out;
    }

    private static void section(StringBuilder sb, String title, Map<String, Long> counts, long total, int top) {
        section(sb, title, counts, total, top, Long::toString);
    }

    private static void section(StringBuilder sb, String title, Map<String, Long> counts, long total, int top,
            LongFunction<String> value) {
        sb.append('\n').append(title).append(":\n");
        counts.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(top)
                .forEach(e -> sb.append(String.format("  %5.1f%%  %8s  %s%n", 100.0 * e.getValue() / Math.max(1, total),
                        value.apply(e.getValue()), e.getKey())));
    }

    private static String thread(RecordedThread t) {
        String name = t == null ? null : t.getJavaName();
        return name == null ? "?" : name.replaceAll("\\d+", "N");
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
