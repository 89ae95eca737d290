package io.streamtables.bench;

import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.MBeanServerConnection;
import javax.management.Notification;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * The packaged all-in-one ({@code quarkus-run.jar}) as its own process, started with {@code -D} properties the
 * way the end-to-end tests start it, and watched through the attach API (JMX): process CPU, heap pool peaks,
 * heap after each GC, and its RSS peak from /proc. Its log tells which commits landed.
 */
public final class AllInOne implements AutoCloseable {

    private static final Pattern COMMITTED = Pattern.compile("Committed (\\d+) rows in (\\d+) files.*?freshness (\\d+) ms");

    private final Process process;
    private final Path log;
    private final int port;
    private final int managementPort;
    private JMXConnector jmx;
    private MBeanServerConnection mbeans;
    private final AtomicLong afterGcPeak = new AtomicLong();
    private long logOffset;
    private long committedRows;
    private int commits;
    /** Per commit, the commit stage's own "freshness": from the first append of the cut to the commit. */
    private final List<Long> commitFreshnessMillis = new ArrayList<>();

    private AllInOne(Process process, Path log, int port, int managementPort) {
        this.process = process;
        this.log = log;
        this.port = port;
        this.managementPort = managementPort;
    }

    public static AllInOne start(Path app, Path workDir, String xmx, List<String> jvmArgs, Map<String, String> config)
            throws Exception {
        return start(app, workDir, xmx, jvmArgs, config, 0);
    }

    /** Any packaged service of the project, on {@code port} (0: a free one); its log goes to its work folder. */
    public static AllInOne start(Path app, Path workDir, String xmx, List<String> jvmArgs, Map<String, String> config,
            int port) throws Exception {
        Path jar = app.resolve("quarkus-run.jar");
        if (!Files.exists(jar)) {
            throw new IllegalStateException(jar + " is missing: package deploy/all-in-one first (bench/run.sh does)");
        }
        if (port == 0) {
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
        }
        int managementPort;
        try (ServerSocket s = new ServerSocket(0)) {
            managementPort = s.getLocalPort();
        }
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx" + xmx,
                "-Dquarkus.http.port=" + port, "-Dquarkus.management.port=" + managementPort));
        command.addAll(jvmArgs);
        config.forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.add("-jar");
        command.add(jar.toString());
        Path log = workDir.resolve("all-in-one.log");
        ProcessBuilder pb = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        Process p = pb.start();
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroy)); // a stopped harness leaves nothing behind
        AllInOne a = new AllInOne(p, log, port, managementPort);
        a.awaitReady();
        a.attach();
        return a;
    }

    public long pid() {
        return process.pid();
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** The body of a GET on the management interface (its own port), e.g. {@code /q/metrics}. */
    public String management(String path) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + managementPort + path).toURL()
                .openConnection();
        c.setConnectTimeout(2_000);
        c.setReadTimeout(10_000);
        try (var in = c.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private void awaitReady() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("all-in-one exited with " + process.exitValue() + "; see " + log);
            }
            try {
                HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + managementPort + "/q/health/ready")
                        .toURL().openConnection();
                c.setConnectTimeout(500);
                if (c.getResponseCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // starting
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("all-in-one not ready in 90 s; see " + log);
    }

    private void attach() throws Exception {
        VirtualMachine vm = VirtualMachine.attach(Long.toString(process.pid()));
        String url;
        try {
            url = vm.startLocalManagementAgent();
        } finally {
            vm.detach();
        }
        jmx = JMXConnectorFactory.connect(new JMXServiceURL(url));
        mbeans = jmx.getMBeanServerConnection();
        for (ObjectName gc : mbeans.queryNames(new ObjectName("java.lang:type=GarbageCollector,*"), null)) {
            mbeans.addNotificationListener(gc, (Notification n, Object hb) -> {
                if (!"com.sun.management.gc.notification".equals(n.getType())) {
                    return;
                }
                CompositeData info = (CompositeData) ((CompositeData) n.getUserData()).get("gcInfo");
                long used = 0;
                for (Object row : ((javax.management.openmbean.TabularData) info.get("memoryUsageAfterGc")).values()) {
                    CompositeData entry = (CompositeData) row;
                    String pool = (String) entry.get("key");
                    if (pool.contains("Eden") || pool.contains("Survivor") || pool.contains("Old")
                            || pool.contains("Tenured")) {
                        used += (Long) ((CompositeData) entry.get("value")).get("used");
                    }
                }
                afterGcPeak.accumulateAndGet(used, Math::max);
            }, null, null);
        }
    }

    /** Starts a measured interval: heap pool peaks, the after-GC peak and the RSS peak are reset. */
    public void resetPeaks() throws IOException {
        for (MemoryPoolMXBean p : pools()) {
            if (p.getType() == MemoryType.HEAP) {
                p.resetPeakUsage();
            }
        }
        afterGcPeak.set(0);
        Measure.resetRssPeak(Path.of("/proc/" + process.pid() + "/clear_refs"));
    }

    private List<MemoryPoolMXBean> pools() throws IOException {
        return ManagementFactory.getPlatformMXBeans(mbeans, MemoryPoolMXBean.class);
    }

    /** Heap bytes allocated so far by each live thread (see {@link Allocated}). */
    public java.util.Map<Long, Long> allocatedByThread() throws IOException {
        return Allocated.snapshot(ManagementFactory.newPlatformMXBeanProxy(mbeans, ManagementFactory.THREAD_MXBEAN_NAME,
                com.sun.management.ThreadMXBean.class));
    }

    public long cpuNanos() throws IOException {
        return ManagementFactory.newPlatformMXBeanProxy(mbeans, ManagementFactory.OPERATING_SYSTEM_MXBEAN_NAME,
                com.sun.management.OperatingSystemMXBean.class).getProcessCpuTime();
    }

    /** Collection time (pauses) summed over the collectors. */
    public long gcMillis() throws IOException {
        long sum = 0;
        for (java.lang.management.GarbageCollectorMXBean gc : ManagementFactory.getPlatformMXBeans(mbeans,
                java.lang.management.GarbageCollectorMXBean.class)) {
            sum += gc.getCollectionTime();
        }
        return sum;
    }

    public long heapPeakBytes() throws IOException {
        long sum = 0;
        for (MemoryPoolMXBean p : pools()) {
            if (p.getType() == MemoryType.HEAP) {
                sum += p.getPeakUsage().getUsed();
            }
        }
        return sum;
    }

    /** The heap in use after a full collection asked for now: what the process holds, not what it has yet to free. */
    public long heapAfterGcBytes() throws IOException {
        java.lang.management.MemoryMXBean memory = ManagementFactory.newPlatformMXBeanProxy(mbeans,
                ManagementFactory.MEMORY_MXBEAN_NAME, java.lang.management.MemoryMXBean.class);
        memory.gc();
        return memory.getHeapMemoryUsage().getUsed();
    }

    public long afterGcPeakBytes() {
        return afterGcPeak.get();
    }

    public long rssPeakKb() {
        return Measure.rssPeakKb(Path.of("/proc/" + process.pid() + "/status"));
    }

    /** The resident set now. */
    public long rssKb() {
        return Measure.statusKb(Path.of("/proc/" + process.pid() + "/status"), "VmRSS:");
    }

    public long threads() {
        return Measure.statusKb(Path.of("/proc/" + process.pid() + "/status"), "Threads:");
    }

    /** JFR through the DiagnosticCommand MBean (what jcmd JFR.start does): profile, and allocation by site. */
    public void jfrStart(Path file) throws Exception {
        Path allocation = file.resolveSibling("allocation.jfc");
        Files.writeString(allocation, JfrSummary.ALLOCATION_SETTINGS);
        jcmd("jfrStart", "name=bench", "settings=profile", "settings=" + allocation, "filename=" + file);
    }

    public void jfrStop() throws Exception {
        jcmd("jfrStop", "name=bench");
    }

    /** The live objects by class (jcmd GC.class_histogram; it runs a full GC first). */
    public String classHistogram() throws Exception {
        return jcmd("gcClassHistogram");
    }

    private String jcmd(String op, String... args) throws Exception {
        return (String) mbeans.invoke(new ObjectName("com.sun.management:type=DiagnosticCommand"), op, new Object[] {args},
                new String[] {String[].class.getName()});
    }

    /** Rows committed so far, read from the commit stage's log lines. */
    public synchronized long committedRows() throws IOException {
        if (!Files.exists(log)) {
            return 0;
        }
        try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
            if (f.length() <= logOffset) {
                return committedRows;
            }
            f.seek(logOffset);
            byte[] bytes = new byte[(int) (f.length() - logOffset)];
            f.readFully(bytes);
            String text = new String(bytes, StandardCharsets.UTF_8);
            int lastNewline = text.lastIndexOf('\n');
            if (lastNewline < 0) {
                return committedRows;
            }
            logOffset += text.substring(0, lastNewline + 1).getBytes(StandardCharsets.UTF_8).length;
            Matcher m = COMMITTED.matcher(text.substring(0, lastNewline + 1));
            while (m.find()) {
                committedRows += Long.parseLong(m.group(1));
                commits++;
                commitFreshnessMillis.add(Long.parseLong(m.group(3)));
            }
        }
        return committedRows;
    }

    public synchronized List<Long> commitFreshnessMillis() throws IOException {
        committedRows();
        return new ArrayList<>(commitFreshnessMillis);
    }

    public synchronized int commits() {
        return commits;
    }

    /** Waits until {@code rows} rows are committed; false on timeout or when the process died. */
    public boolean awaitCommitted(long rows, long timeoutMillis) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (System.currentTimeMillis() < deadline && process.isAlive()) {
            if (committedRows() >= rows) {
                return true;
            }
            Thread.sleep(50);
        }
        return committedRows() >= rows;
    }

    public boolean alive() {
        return process.isAlive();
    }

    public Path log() {
        return log;
    }

    @Override
    public void close() throws Exception {
        if (jmx != null) {
            try {
                jmx.close();
            } catch (IOException ignored) {
                // the process goes anyway
            }
        }
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
