package io.streamtables.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One measured interval of this JVM: wall time, process CPU (all threads, GC and JIT included), the calling
 * thread's CPU, peak heap (sum of the heap pools' peaks, reset at the start), peak live heap (after-GC usage),
 * and peak RSS (VmHWM, reset at the start through /proc/self/clear_refs where the kernel allows it).
 */
public final class Measure {

    private final long wall0 = System.nanoTime();
    private final long cpu0 = processCpuNanos();
    private final long thread0 = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    private final java.util.Map<String, Long> groups0 = ThreadCpu.snapshot(ProcessHandle.current().pid());
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private final java.util.Map<Long, Long> allocated0 = Allocated.snapshot(THREADS);
    private long allocatedBytes;
    private java.util.Map<String, Double> groups;
    private final jdk.jfr.Recording recording = jfr();
    private long wallNanos;
    private long cpuNanos;
    private long threadNanos;

    private Measure() {
    }

    /** Starts an interval: a full GC first, so that what the previous phase left does not count. */
    public static Measure start() {
        System.gc();
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            p.resetPeakUsage();
        }
        resetRssPeak(Path.of("/proc/self/clear_refs"));
        AFTER_GC_PEAK.set(0);
        return new Measure();
    }

    public Measure stop() {
        wallNanos = System.nanoTime() - wall0;
        cpuNanos = processCpuNanos() - cpu0;
        threadNanos = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - thread0;
        groups = ThreadCpu.delta(groups0, ThreadCpu.snapshot(ProcessHandle.current().pid()));
        allocatedBytes = Allocated.delta(allocated0, Allocated.snapshot(THREADS));
        if (recording != null) {
            try {
                recording.stop();
                Path out = Path.of(System.getProperty("bench.jfr"));
                recording.dump(out);
                recording.close();
                JfrSummary.write(out, Path.of(out.toString().replaceFirst("\\.jfr$", "") + ".txt"));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return this;
    }

    /** With -Dbench.jfr=FILE, the first measured interval is recorded with JFR's profile settings and the TLABs. */
    private static jdk.jfr.Recording jfr() {
        String file = System.getProperty("bench.jfr");
        if (file == null || JFR_TAKEN.getAndSet(true)) {
            return null;
        }
        try {
            jdk.jfr.Recording r = new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
            JfrSummary.enableAllocation(r);
            r.start();
            return r;
        } catch (IOException | java.text.ParseException e) {
            throw new IllegalStateException(e);
        }
    }

    private static final java.util.concurrent.atomic.AtomicBoolean JFR_TAKEN = new java.util.concurrent.atomic.AtomicBoolean();

    public double seconds() {
        return wallNanos / 1e9;
    }

    public double cpuSeconds() {
        return cpuNanos / 1e9;
    }

    public double threadCpuSeconds() {
        return threadNanos / 1e9;
    }

    /** The interval's figures into a result, for {@code rows} rows of {@code jsonBytes} input JSON. */
    public void into(Result r, long rows, long jsonBytes) {
        r.put("rows", rows);
        r.put("json_mb", jsonBytes / 1e6);
        r.put("seconds", seconds());
        r.put("rows_per_s", rows / seconds());
        r.put("mb_per_s", jsonBytes / 1e6 / seconds());
        r.put("cpu_s", cpuSeconds());
        r.put("thread_cpu_s", threadCpuSeconds());
        r.put("cpu_s_per_m_rows", cpuSeconds() / rows * 1e6);
        r.put("cpu_s_per_gb", cpuSeconds() / (jsonBytes / 1e9));
        r.put("cpu_by_thread_s", groups);
        r.put("jit_cpu_s", groups.getOrDefault("jit", 0.0));
        r.put("cpu_s_per_m_rows_without_jit", (cpuSeconds() - groups.getOrDefault("jit", 0.0)) / rows * 1e6);
        r.put("alloc_kb_per_row", allocatedBytes / 1024.0 / rows);
        r.put("heap_peak_mb", heapPeakBytes() / 1048576.0);
        r.put("heap_live_peak_mb", liveHeapPeakBytes() / 1048576.0);
        r.put("rss_peak_mb", rssPeakKb(Path.of("/proc/self/status")) / 1024.0);
    }

    public static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    public static long heapPeakBytes() {
        long sum = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) {
                sum += p.getPeakUsage().getUsed();
            }
        }
        return sum;
    }

    /** The largest heap in use right after a collection since the interval started (≈ the live set). */
    public static long liveHeapPeakBytes() {
        return AFTER_GC_PEAK.get();
    }

    private static final java.util.Set<String> HEAP_POOLS = heapPools();

    private static final java.util.concurrent.atomic.AtomicLong AFTER_GC_PEAK = new java.util.concurrent.atomic.AtomicLong();

    static {
        for (java.lang.management.GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof javax.management.NotificationEmitter emitter) {
                emitter.addNotificationListener((n, hb) -> {
                    if (!com.sun.management.GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION
                            .equals(n.getType())) {
                        return;
                    }
                    var info = com.sun.management.GarbageCollectionNotificationInfo.from(
                            (javax.management.openmbean.CompositeData) n.getUserData());
                    long used = 0;
                    for (var e : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
                        if (HEAP_POOLS.contains(e.getKey())) {
                            used += e.getValue().getUsed();
                        }
                    }
                    AFTER_GC_PEAK.accumulateAndGet(used, Math::max);
                }, null, null);
            }
        }
    }

    private static java.util.Set<String> heapPools() {
        java.util.Set<String> names = new java.util.HashSet<>();
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) {
                names.add(p.getName());
            }
        }
        return names;
    }

    static boolean resetRssPeak(Path clearRefs) {
        try {
            Files.writeString(clearRefs, "5");
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    static long rssPeakKb(Path status) {
        return statusKb(status, "VmHWM:");
    }

    static long statusKb(Path status, String key) {
        try {
            List<String> lines = Files.readAllLines(status);
            for (String l : lines) {
                if (l.startsWith(key)) {
                    return Long.parseLong(l.substring(key.length()).trim().split("\\s+")[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return -1;
    }
}
