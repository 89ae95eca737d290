package io.streamtables.commit;

import com.sun.management.OperatingSystemMXBean;
import io.streamtables.bench.Events;
import io.streamtables.bench.Setup;
import io.streamtables.bus.RowChunk;
import io.streamtables.channel.Channel;
import io.streamtables.schema.ChannelSchema;
import io.streamtables.watermarks.ManifestWorkers;
import io.streamtables.watermarks.ShardWatermarks;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;
import java.util.concurrent.*;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;

/**
 * The commit stage's writer lanes: one JVM, alternating rounds of {@link ChannelBuffer} with each number
 * of lanes, fed the benchmark's converted rows as 4 shards by {@code threads} appending threads (chunks of 10 000
 * rows), then one cut and its commit. Prints per round the wall time, the CPU (appending threads, cut + commit, the
 * whole process), the files per partition and the share of each appending thread's wall time spent waiting for a
 * lock; then medians (round 0 is a warm-up). Not a scenario of {@code bench/run.sh}:
 * {@code java -Xmx3g -cp "bench/target/classes:$(cat bench/target/classpath.txt)" io.streamtables.commit.LanesAB
 * ROWS HOURS ROUNDS THREADS LANES[,LANES...]}.
 */
public final class LanesAB {

    private static final ManifestWorkers MANIFESTS = ManifestWorkers.start(2);

    private LanesAB() {
    }

    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a[0]), hours = Integer.parseInt(a[1]), rounds = Integer.parseInt(a[2]);
        int threads = Integer.parseInt(a[3]);
        int[] laneCounts = Arrays.stream(a[4].split(",")).mapToInt(Integer::parseInt).toArray();
        byte[][] events = Events.generate(42, n, hours);
        ChannelSchema schema = Setup.schema();
        List<Record> rows = FloorBench.convert(events, schema);
        Path dir = Files.createTempDirectory("lanesab");
        Catalog catalog = Setup.catalog(dir);
        ThreadMXBean T = ManagementFactory.getThreadMXBean();
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        T.setThreadContentionMonitoringEnabled(true);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        Map<Integer, List<double[]>> res = new TreeMap<>();
        for (int r = 0; r < rounds; r++) {
            for (int li = 0; li < laneCounts.length; li++) {
                int lanes = laneCounts[(li + r) % laneCounts.length];
                Channel channel = Setup.channel("lanes_" + r + "_" + lanes + "_" + hours);
                List<RowChunk> chunks = CommitBench.chunks(channel, rows, 4, 10_000);
                Table table = TableOpener.open(catalog, false, channel, schema.iceberg(), schema.versionId());
                ChannelBuffer buffer = new ChannelBuffer(channel, table,
                        ShardWatermarks.committed(table, channel.streamArn().toString()),
                        BufferLimits.DEFAULT.withLanes(lanes));
                List<List<RowChunk>> perThread = new ArrayList<>();
                for (int t = 0; t < threads; t++) perThread.add(new ArrayList<>());
                for (RowChunk c : chunks) {
                    int shard = Integer.parseInt(c.token().shardId().substring(8));
                    perThread.get(shard % threads).add(c);
                }
                System.gc();
                List<Double> waits = Collections.synchronizedList(new ArrayList<>());
                long p0 = os.getProcessCpuTime(), w0 = System.nanoTime();
                List<Future<Long>> fs = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    List<RowChunk> mine = perThread.get(t);
                    fs.add(pool.submit(() -> {
                        long c0 = T.getCurrentThreadCpuTime();
                        var i0 = T.getThreadInfo(Thread.currentThread().getId());
                        long s0 = System.nanoTime();
                        for (RowChunk c : mine) buffer.append(c);
                        var i1 = T.getThreadInfo(Thread.currentThread().getId());
                        long lockWait = (i1.getWaitedTime() - i0.getWaitedTime()) + (i1.getBlockedTime() - i0.getBlockedTime());
                        waits.add(lockWait / 1000.0 / ((System.nanoTime() - s0) / 1e9));
                        return T.getCurrentThreadCpuTime() - c0;
                    }));
                }
                long threadCpu = 0;
                for (Future<Long> f : fs) threadCpu += f.get();
                long w1 = System.nanoTime();
                long c0 = T.getCurrentThreadCpuTime();
                PendingCommit cut = buffer.cut();
                if (!ShardWatermarks.commit(catalog.loadTable(channel.table()), cut, MANIFESTS)) throw new IllegalStateException();
                buffer.committed(cut);
                long cutCpu = T.getCurrentThreadCpuTime() - c0;
                long w2 = System.nanoTime(), p1 = os.getProcessCpuTime();
                Map<String, Integer> perPartition = new HashMap<>();
                for (DataFile f : cut.files()) perPartition.merge(f.partition().toString(), 1, Integer::sum);
                int maxFiles = perPartition.values().stream().mapToInt(Integer::intValue).max().orElse(0);
                double appendWall = (w1 - w0) / 1e9, totalWall = (w2 - w0) / 1e9;
                System.out.printf("round %d lanes %d: append wall %.2f s, rows/s to cut+commit %.0f, append thread CPU %.2f s, cut+commit CPU %.2f s, process CPU %.2f s (%.1f s/M rows), files %d, max files/partition %d, load %.1f, lock wait share of append wall per thread %s%n",
                        r, lanes, appendWall, n / totalWall, threadCpu / 1e9, cutCpu / 1e9, (p1 - p0) / 1e9, (p1 - p0) / 1e9 / n * 1e6,
                        cut.files().size(), maxFiles, os.getSystemLoadAverage(), waits.stream().map(x -> String.format("%.0f%%", x * 100)).toList());
                if (r >= 1) res.computeIfAbsent(lanes, k -> new ArrayList<>()).add(new double[] {n / totalWall, (p1 - p0) / 1e9 / n * 1e6, (threadCpu + cutCpu) / 1e9 / n * 1e6});
            }
        }
        for (var e : res.entrySet()) {
            double[] rps = e.getValue().stream().mapToDouble(x -> x[0]).sorted().toArray();
            double[] cpu = e.getValue().stream().mapToDouble(x -> x[1]).sorted().toArray();
            double[] tcpu = e.getValue().stream().mapToDouble(x -> x[2]).sorted().toArray();
            System.out.printf("lanes %d: median rows/s %.0f [%.0f-%.0f], process CPU s/M rows %.1f [%.1f-%.1f], writer threads CPU s/M rows %.1f%n", e.getKey(),
                    rps[rps.length / 2], rps[0], rps[rps.length - 1], cpu[cpu.length / 2], cpu[0], cpu[cpu.length - 1], tcpu[tcpu.length / 2]);
        }
        pool.shutdown();
        System.exit(0);
    }
}
