package io.streamtables.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;

/**
 * Soak: the packaged all-in-one at freshness 1 s, records of 24 hour partitions at a steady rate from
 * {@link FakeKinesis}, long enough for many commits, with table maintenance on or off. Reports the freshness lag
 * and the commit duration in the first and the last tenth of the commits (without maintenance both grow with the
 * table's metadata), what the table holds at the end (metadata.json size, snapshots, data files per partition, the
 * time to plan a full scan) and the CPU the maintenance threads took per delivered row.
 */
final class SoakBench {

    private static final Pattern COMMITTED = Pattern.compile("freshness (\\d+) ms, commit (\\d+) ms");
    private static final Pattern MAINTAINED = Pattern.compile("Maintained .*filesCompacted=(\\d+)");

    private SoakBench() {
    }

    static Result run(Path dir, Path app, long seed, int seconds, int rate, int shards, int hours, boolean maintenance,
            String xmx) throws Exception {
        int records = seconds * rate;
        Result r = new Result("soak").put("maintenance", maintenance ? "on" : "off").put("seconds", seconds)
                .put("rate", rate).put("shards", shards).put("partitions", hours).put("freshness_s", 1);
        try (FakeKinesis source = new FakeKinesis("bench-soak", shards, records, g -> Events.event(seed, g, hours), 0)) {
            AppSetup setup = new AppSetup(dir, "bench-soak", 1, source.endpoint(), 10_000);
            setup.config.put("delivery.maintenance.enabled", Boolean.toString(maintenance));
            // scaled for a run of minutes instead of months: a run every 30 s, a hundred snapshots kept
            setup.config.put("delivery.maintenance.interval", "30s");
            setup.config.put("delivery.maintenance.max-snapshots", "100");
            setup.config.put("delivery.maintenance.orphan-age", "10m");
            try (AllInOne aio = AllInOne.start(app, dir, xmx, List.of(), setup.config)) {
                Map<String, Long> threads0 = ThreadCpu.snapshot(aio.pid());
                long cpu0 = aio.cpuNanos();
                long t0 = System.currentTimeMillis();
                for (long t = 100; t <= seconds * 1000L; t += 100) { // steady input: a tenth of a second at a time
                    long wait = t0 + t - System.currentTimeMillis();
                    if (wait > 0) {
                        Thread.sleep(wait);
                    }
                    source.release((int) Math.min(records, t * rate / 1000));
                }
                source.release(records);
                if (!aio.awaitCommitted(records, 300_000)) {
                    throw new IllegalStateException("not all committed; see " + aio.log());
                }
                long cpu1 = aio.cpuNanos();
                Map<String, Long> threads1 = ThreadCpu.snapshot(aio.pid());
                r.put("rss_peak_mb", aio.rssPeakKb() / 1024.0);
                r.put("cpu_us_per_row", (cpu1 - cpu0) / 1000.0 / records);
                double maintenanceSeconds = (threads1.getOrDefault("maintenance", 0L)
                        - threads0.getOrDefault("maintenance", 0L)) / 100.0;
                r.put("maintenance_cpu_s", maintenanceSeconds);
                r.put("maintenance_cpu_us_per_row", maintenanceSeconds * 1e6 / records);
                r.put("cpu_by_thread_s", ThreadCpu.delta(threads0, threads1));
                String log = Files.readString(aio.log());
                commits(r, log);
                Matcher m = MAINTAINED.matcher(log);
                int runs = 0;
                long compacted = 0;
                while (m.find()) {
                    runs++;
                    compacted += Long.parseLong(m.group(1));
                }
                r.put("maintenance_runs", runs).put("files_compacted", compacted);
                aio.close();
                table(r, setup.catalog().loadTable(setup.table));
            }
        }
        return r;
    }

    /** Freshness lag and commit duration, p50 and p99, in the first and the last tenth of the commits. */
    private static void commits(Result r, String log) {
        List<long[]> commits = new ArrayList<>();
        Matcher m = COMMITTED.matcher(log);
        while (m.find()) {
            commits.add(new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))});
        }
        r.put("commits", commits.size());
        int tenth = Math.max(1, commits.size() / 10);
        for (String part : List.of("first", "last")) {
            List<long[]> slice = part.equals("first") ? commits.subList(0, tenth)
                    : commits.subList(commits.size() - tenth, commits.size());
            double[] lag = slice.stream().mapToDouble(c -> c[0] / 1000.0).sorted().toArray();
            double[] commit = slice.stream().mapToDouble(c -> c[1]).sorted().toArray();
            r.put(part + "_tenth_lag_p50_s", pct(lag, 50)).put(part + "_tenth_lag_p99_s", pct(lag, 99));
            r.put(part + "_tenth_commit_p50_ms", pct(commit, 50)).put(part + "_tenth_commit_p99_ms", pct(commit, 99));
        }
        r.put("lag_p99_last_over_first", r.num("last_tenth_lag_p99_s") / r.num("first_tenth_lag_p99_s"));
        r.put("commit_p50_last_over_first", r.num("last_tenth_commit_p50_ms") / r.num("first_tenth_commit_p50_ms"));
    }

    /** What the table holds at the end, and how long a full scan takes to plan. */
    private static void table(Result r, Table t) throws IOException {
        String metadata = ((HasTableOperations) t).operations().current().metadataFileLocation();
        r.put("metadata_json_kb", t.io().newInputFile(metadata).getLength() / 1024.0);
        int snapshots = 0;
        for (var ignored : t.snapshots()) {
            snapshots++;
        }
        r.put("snapshots", snapshots);
        r.put("data_manifests", t.currentSnapshot().dataManifests(t.io()).size());
        Map<String, Integer> perPartition = new java.util.HashMap<>();
        double[] planning = new double[5];
        for (int i = 0; i < planning.length; i++) {
            long start = System.nanoTime();
            perPartition.clear();
            try (CloseableIterable<FileScanTask> tasks = t.newScan().planFiles()) {
                tasks.forEach(f -> perPartition.merge(t.spec().partitionToPath(f.file().partition()), 1, Integer::sum));
            }
            planning[i] = (System.nanoTime() - start) / 1e6;
        }
        Arrays.sort(planning);
        r.put("scan_planning_ms", planning[planning.length / 2]);
        r.put("data_files", perPartition.values().stream().mapToInt(Integer::intValue).sum());
        r.put("data_files_per_partition_avg", perPartition.values().stream().mapToInt(Integer::intValue).average()
                .orElse(0));
        r.put("data_files_per_partition_max", perPartition.values().stream().mapToInt(Integer::intValue).max()
                .orElse(0));
    }

    private static double pct(double[] sorted, int p) {
        return sorted.length == 0 ? Double.NaN : sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100.0
                * sorted.length) - 1)];
    }
}
