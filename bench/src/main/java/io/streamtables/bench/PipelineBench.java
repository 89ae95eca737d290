package io.streamtables.bench;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.Catalog;

/**
 * Pipeline: the packaged all-in-one, unchanged, reading the benchmark records from {@link FakeKinesis} (an
 * in-process source, no emulator) to committed snapshots. A warm-up (other records of the same shape) is
 * delivered first, in parts of N records, each committed before the next; then the measured records are released
 * and the interval runs until the commit stage has logged all of them committed.
 */
final class PipelineBench {

    private PipelineBench() {
    }

    static Result run(Path dir, Path app, long seed, int n, int warm, int shards, int hours, int freshness,
            String xmx, List<String> jvm, Path jfr, boolean compiledDecoder, int getRecordsLimit) throws Exception {
        long jsonBytes = 0;
        for (int i = 0; i < n; i++) {
            jsonBytes += Events.event(seed, i, hours).length;
        }
        Result r = new Result("pipeline").put("shards", shards).put("partitions", hours).put("freshness_s", freshness)
                .put("xmx", xmx).put("jvm", String.join(" ", jvm));
        // The warm-up is released N rows at a time, each part committed before the next, as the floor writes its
        // warm-up in files of N rows: a steady service closes its files every interval, and the JIT compilers
        // recompile what the first files' close and the next files' first rows deoptimise.
        int part = Math.max(1, Math.min(warm, n));
        try (FakeKinesis source = new FakeKinesis("bench-events", shards, warm + n, g -> g < warm
                ? Events.event(seed + 1, g, hours) : Events.event(seed, g - warm, hours), Math.min(warm, part))) {
            AppSetup setup = new AppSetup(dir, "bench-events", freshness, source.endpoint(), getRecordsLimit);
            if (!compiledDecoder) {
                setup.config.put("delivery.records.compiled-decoder", "false"); // the reference alone
            }
            try (AllInOne aio = AllInOne.start(app, dir, xmx, jvm, setup.config)) {
                for (int gate = Math.min(warm, part); ; gate = Math.min(warm, gate + part)) {
                    source.release(gate);
                    if (!aio.awaitCommitted(gate, 180_000)) {
                        throw new IllegalStateException("warm-up not committed; see " + aio.log());
                    }
                    if (gate == warm) {
                        break;
                    }
                }
                Thread.sleep(300);
                aio.resetPeaks();
                if (jfr != null) {
                    aio.jfrStart(jfr);
                }
                Map<String, Long> threads0 = ThreadCpu.snapshot(aio.pid());
                long gc0 = aio.gcMillis();
                Map<Long, Long> allocated0 = aio.allocatedByThread();
                long sourceCpu0 = Measure.processCpuNanos();
                long cpu0 = aio.cpuNanos();
                long t0 = System.currentTimeMillis();
                source.release(warm + n);
                if (jfr != null) {
                    // What the heap holds once every chunk is appended and before the cut closes the files.
                    while (source.takenAtMillis() < 0 && aio.alive()) {
                        Thread.sleep(20);
                    }
                    String histogram = aio.classHistogram();
                    java.nio.file.Files.writeString(Path.of(jfr.toString().replaceFirst("\\.jfr$", "") + "-heap.txt"),
                            String.join("\n", histogram.lines().limit(40).toList()) + "\n");
                }
                boolean done = aio.awaitCommitted((long) warm + n, 600_000);
                long t1 = System.currentTimeMillis();
                long cpu1 = aio.cpuNanos();
                Map<String, Long> threads1 = ThreadCpu.snapshot(aio.pid());
                long gc1 = aio.gcMillis();
                long allocated = Allocated.delta(allocated0, aio.allocatedByThread());
                long sourceCpu1 = Measure.processCpuNanos();
                if (jfr != null) {
                    aio.jfrStop();
                }
                long taken = source.takenAtMillis();
                r.put("completed", done);
                r.put("rows", n).put("json_mb", jsonBytes / 1e6);
                long started = source.firstServedAtMillis();
                // From the first records served to the last chunk taken: at full speed a reader never waits for
                // records, so its idle poll (up to 500 ms after the release) is left out; CPU counts from the release.
                double ingestSeconds = taken > 0 && started > 0 ? (taken - started) / 1000.0 : Double.NaN;
                r.put("first_served_after_s", (started - t0) / 1000.0);
                r.put("seconds", ingestSeconds);
                r.put("rows_per_s", n / ingestSeconds);
                r.put("mb_per_s", jsonBytes / 1e6 / ingestSeconds);
                r.put("seconds_to_committed", (t1 - t0) / 1000.0);
                r.put("rows_per_s_to_committed", n / ((t1 - t0) / 1000.0));
                double cpu = (cpu1 - cpu0) / 1e9;
                r.put("cpu_s", cpu);
                r.put("cpu_s_per_m_rows", cpu / n * 1e6);
                r.put("cpu_s_per_gb", cpu / (jsonBytes / 1e9));
                r.put("alloc_kb_per_row", allocated / 1024.0 / n);
                r.put("heap_peak_mb", aio.heapPeakBytes() / 1048576.0);
                r.put("heap_live_peak_mb", aio.afterGcPeakBytes() / 1048576.0);
                r.put("rss_peak_mb", aio.rssPeakKb() / 1024.0);
                r.put("threads", aio.threads());
                r.put("gc_pause_s", (gc1 - gc0) / 1000.0);
                Map<String, Double> groups = ThreadCpu.delta(threads0, threads1);
                r.put("cpu_by_thread_s", groups);
                r.put("jit_cpu_s", groups.getOrDefault("jit", 0.0));
                r.put("cpu_s_per_m_rows_without_jit", (cpu - groups.getOrDefault("jit", 0.0)) / n * 1e6);
                r.put("source_cpu_s", (sourceCpu1 - sourceCpu0) / 1e9);
                r.put("compiled_share", compiledShare(aio.management("/q/metrics")));
                Catalog catalog = setup.catalog();
                aio.close();
                AppSetup.Stats stats = AppSetup.stats(catalog, setup.table, setup.streamArn, t0);
                stats.into(r, "");
                r.put("commits_in_run", stats.commits.stream().filter(c -> c.timestampMillis() >= t0).count());
            }
        }
        return r;
    }

    /** The share of the records the convert stage's compiled fast path decoded (the rest: the reference). */
    static double compiledShare(String metrics) {
        double compiled = 0;
        double all = 0;
        for (String line : metrics.lines().toList()) {
            if (line.startsWith("delivery_records_decoded_total{")) {
                double v = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                all += v;
                compiled += line.contains("path=\"compiled\"") ? v : 0;
            }
        }
        return all == 0 ? Double.NaN : compiled / all;
    }
}
