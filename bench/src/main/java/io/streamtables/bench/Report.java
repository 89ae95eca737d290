package io.streamtables.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** results.json, results.md and scale.png from the results of one run. */
final class Report {

    private Report() {
    }

    static String brief(Result r) {
        StringBuilder sb = new StringBuilder(String.valueOf(r.values.get("scenario")));
        for (String k : List.of("shards", "partitions", "freshness_s", "rows_per_s", "mb_per_s", "cpu_s_per_m_rows",
                "heap_peak_mb", "rss_peak_mb", "rejects_per_s", "records_per_s", "lag_p50_s", "lag_p99_s",
                "max_files_per_partition_per_commit", "flood", "signed_p99_ms", "signed_refused", "freshness_p99_s",
                "dead_letters", "answers")) {
            if (r.values.containsKey(k)) {
                sb.append(' ').append(k).append('=').append(fmt(r.values.get(k)));
            }
        }
        return sb.toString();
    }

    static void write(Path out, List<Result> results, int n, String machine) throws IOException {
        List<Map<String, Object>> all = new ArrayList<>();
        results.forEach(r -> all.add(r.values));
        Files.writeString(out.resolve("results.json"), Result.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(
                Map.of("machine", machine, "records", n, "finished", Instant.now().toString(), "results", all)));
        Files.writeString(out.resolve("results.md"), markdown(results, n, machine));
        chart(results, out.resolve("scale.png"));
        soakChart(results, out.resolve("soak.png"));
        channelsChart(results, out.resolve("channels.png"));
    }

    /** The soak's runs, maintenance off first (they run side by side and end in any order). */
    private static List<Result> soakRuns(List<Result> rs) {
        return rs.stream().filter(r -> "soak".equals(r.values.get("scenario")))
                .sorted(java.util.Comparator.comparing(r -> String.valueOf(r.values.get("maintenance")))).toList();
    }

    /** Soak: freshness lag p99 and commit p50 in the first and the last tenth, maintenance off and on. */
    static void soakChart(List<Result> rs, Path png) throws IOException {
        List<Result> soak = soakRuns(rs);
        if (soak.isEmpty()) {
            return;
        }
        org.jfree.data.category.DefaultCategoryDataset lag = new org.jfree.data.category.DefaultCategoryDataset();
        org.jfree.data.category.DefaultCategoryDataset commit = new org.jfree.data.category.DefaultCategoryDataset();
        for (Result r : soak) {
            String series = "maintenance " + r.values.get("maintenance");
            lag.addValue(r.num("first_tenth_lag_p99_s"), series, "first tenth");
            lag.addValue(r.num("last_tenth_lag_p99_s"), series, "last tenth");
            commit.addValue(r.num("first_tenth_commit_p50_ms"), series, "first tenth");
            commit.addValue(r.num("last_tenth_commit_p50_ms"), series, "last tenth");
        }
        org.jfree.chart.plot.CombinedDomainCategoryPlot plot = new org.jfree.chart.plot.CombinedDomainCategoryPlot(
                new org.jfree.chart.axis.CategoryAxis("part of the run"));
        plot.add(new org.jfree.chart.plot.CategoryPlot(lag, null, new NumberAxis("freshness lag p99 (s)"),
                new org.jfree.chart.renderer.category.BarRenderer()), 1);
        plot.add(new org.jfree.chart.plot.CategoryPlot(commit, null, new NumberAxis("commit duration p50 (ms)"),
                new org.jfree.chart.renderer.category.BarRenderer()), 1);
        JFreeChart chart = new JFreeChart("Soak at freshness 1 s: with and without table maintenance",
                JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(png.toFile(), chart, 1000, 700);
    }

    /** Many channels: what each idle one costs, then a tenth of them active, by number of channels. */
    private static void channels(StringBuilder md, List<Result> runs) {
        if (runs.isEmpty()) {
            return;
        }
        md.append("\n| idle channels (one shard each) | on | ACTIVE after s | cores before / after "
                + "| % of a core per channel | heap after GC MB before / after | heap KB per channel "
                + "| RSS MB before / after | RSS KB per channel | threads before / after | GetRecords / s "
                + "| per channel |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Result r : runs) {
            md.append(row(r.values.get("channels"), r.values.getOrDefault("mode", "all-in-one"),
                    r.values.get("active_seconds"),
                    fmt(r.values.get("cores_before")) + " / " + fmt(r.values.get("cores_after")),
                    r.values.get("cpu_pct_of_core_per_channel"),
                    fmt(r.values.get("heap_mb_before")) + " / " + fmt(r.values.get("heap_mb_after")),
                    r.values.get("heap_kb_per_channel"),
                    fmt(r.values.get("rss_mb_before")) + " / " + fmt(r.values.get("rss_mb_after")),
                    r.values.get("rss_kb_per_channel"),
                    fmt(r.values.get("threads_before")) + " / " + fmt(r.values.get("threads_after")),
                    r.values.get("getrecords_per_s"), r.values.get("getrecords_per_s_per_channel")));
        }
        md.append("\n| channels | on | of them active | their interval s | records/s each | cores | threads "
                + "| first records committed after s (tables created) | GetRecords / s | records | committed "
                + "| dead letters | commits | freshness p50 s | p99 s | max s | committed after the first 30 s: p50 "
                + "| p99 | max |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        channelRows(md, runs, "active_channels", "active_freshness_s", "active_rate", "active_cores", "active_threads",
                "first_delivery_s", "active_getrecords_per_s", "appended", "committed", "dead_letters", "commits",
                "freshness_p50_s", "freshness_p99_s", "freshness_max_s", "freshness_after_30s_p50_s",
                "freshness_after_30s_p99_s", "freshness_after_30s_max_s");
        md.append("\nWhere the active channels' lateness is added: the age of a chunk's oldest record when each stage "
                + "hands the chunk on (`delivery.chunk.latency`), its mean over the steady phase and the largest "
                + "channel's p99, s\n\n| channels | on | ingest mean | p99 | convert mean | p99 | commit mean | p99 "
                + "|\n|---|---|---|---|---|---|---|---|\n");
        channelRows(md, runs, "ingest_latency_mean_s", "ingest_latency_p99_max_s", "convert_latency_mean_s",
                "convert_latency_p99_max_s", "commit_latency_mean_s", "commit_latency_p99_max_s");
        md.append("\n![cost per idle channel against the number of channels](channels.png)\n");
    }

    /** A row per run: its number of channels, where they ran, then the values of {@code keys}. */
    private static void channelRows(StringBuilder md, List<Result> runs, String... keys) {
        for (Result r : runs) {
            List<Object> cells = new ArrayList<>();
            cells.add(r.values.get("channels"));
            cells.add(r.values.getOrDefault("mode", "all-in-one"));
            for (String key : keys) {
                cells.add(r.values.get(key));
            }
            md.append(row(cells.toArray()));
        }
    }

    /** Per idle channel, against the number of channels: share of a core, heap, RSS and threads; targets as lines. */
    static void channelsChart(List<Result> rs, Path png) throws IOException {
        List<Result> runs = rs.stream().filter(r -> "channels_idle".equals(r.values.get("scenario")))
                .sorted(java.util.Comparator.comparingDouble(r -> r.num("channels"))).toList();
        if (runs.isEmpty()) {
            return;
        }
        org.jfree.chart.plot.CombinedDomainCategoryPlot plot = new org.jfree.chart.plot.CombinedDomainCategoryPlot(
                new org.jfree.chart.axis.CategoryAxis("idle channels of one shard each"));
        String[][] panels = {{"cpu_pct_of_core_per_channel", "% of a core", "0.1"},
            {"heap_kb_per_channel", "heap KB", "1024"}, {"rss_kb_per_channel", "RSS KB", ""},
            {"threads_per_channel", "threads", ""}};
        Map<String, Color> colors = new java.util.LinkedHashMap<>();
        colors.put("all-in-one", new Color(0x1f77b4));
        colors.put("distributed", new Color(0xff7f0e));
        for (String[] panel : panels) {
            org.jfree.data.category.DefaultCategoryDataset data = new org.jfree.data.category.DefaultCategoryDataset();
            double max = 0;
            for (Result r : runs) {
                double value = panel[0].equals("threads_per_channel")
                        ? (r.num("threads_after") - r.num("threads_before")) / Math.max(1, r.num("channels"))
                        : r.num(panel[0]);
                data.addValue(value, String.valueOf(r.values.getOrDefault("mode", "all-in-one")),
                        fmt(r.values.get("channels")));
                max = Math.max(max, value);
            }
            org.jfree.chart.renderer.category.BarRenderer bars = new org.jfree.chart.renderer.category.BarRenderer();
            bars.setBarPainter(new org.jfree.chart.renderer.category.StandardBarPainter());
            bars.setShadowVisible(false);
            for (int i = 0; i < data.getRowCount(); i++) {
                bars.setSeriesPaint(i, colors.getOrDefault(String.valueOf(data.getRowKey(i)), Color.GRAY));
            }
            org.jfree.chart.plot.CategoryPlot sub = new org.jfree.chart.plot.CategoryPlot(data, null,
                    new NumberAxis(panel[1]), bars);
            if (!panel[2].isEmpty()) {
                org.jfree.chart.plot.ValueMarker target = new org.jfree.chart.plot.ValueMarker(
                        Double.parseDouble(panel[2]), Color.RED, new java.awt.BasicStroke(1.5f));
                target.setLabel("target");
                target.setLabelAnchor(org.jfree.chart.ui.RectangleAnchor.TOP_RIGHT);
                target.setLabelTextAnchor(org.jfree.chart.ui.TextAnchor.BOTTOM_RIGHT);
                sub.addRangeMarker(target);
                ((NumberAxis) sub.getRangeAxis()).setUpperBound(Math.max(max, Double.parseDouble(panel[2])) * 1.2);
            }
            plot.add(sub, 1);
        }
        org.jfree.chart.LegendItemCollection legend = new org.jfree.chart.LegendItemCollection();
        colors.forEach((mode, color) -> legend.add(new org.jfree.chart.LegendItem(mode, color)));
        plot.setFixedLegendItems(legend);
        JFreeChart chart = new JFreeChart("What an idle channel costs, per channel", JFreeChart.DEFAULT_TITLE_FONT,
                plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(png.toFile(), chart, 1000, 900);
    }

    static Result find(List<Result> rs, String scenario, Predicate<Result> p) {
        return rs.stream().filter(r -> scenario.equals(r.values.get("scenario")) && p.test(r)).findFirst().orElse(null);
    }

    /** The median by rows/s of the matching results (the repeated floor and pipeline runs). */
    static Result median(List<Result> rs, String scenario, Predicate<Result> p) {
        return median(rs.stream().filter(r -> scenario.equals(r.values.get("scenario"))).toList(), p);
    }

    static Result median(List<Result> rs, Predicate<Result> p) {
        List<Result> m = rs.stream().filter(r -> p.test(r)
                && !Double.isNaN(r.num("rows_per_s"))).sorted((a, b) -> Double.compare(a.num("rows_per_s"),
                b.num("rows_per_s"))).toList();
        return m.isEmpty() ? null : m.get((m.size() - 1) / 2);
    }

    private static Predicate<Result> at(String key, int value) {
        return r -> r.num(key) == value;
    }

    static String markdown(List<Result> rs, int n, String machine) {
        StringBuilder md = new StringBuilder();
        md.append("# Benchmark results\n\n");
        md.append("- machine: ").append(machine).append('\n');
        md.append("- finished: ").append(Instant.now()).append('\n');
        md.append("- data: ").append(n).append(" records per scenario, 12-field events of ~1 KB JSON (")
                .append("bench/src/main/java/io/streamtables/bench/Events.java), hour partitions, ZSTD\n\n");

        md.append("## Floor and stages (single thread, in-process)\n\n");
        md.append("| scenario | partitions | rows/s | MB/s JSON | CPU s / M rows (process) | without JIT | CPU s / M rows (thread) | CPU s / GB | alloc KB / row | heap peak MB | heap after GC peak MB | RSS peak MB | files | avg file MB |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Result r : rs) {
            String s = (String) r.values.get("scenario");
            if (s.startsWith("floor") || s.startsWith("stage_convert") || s.equals("stage_write_commit")) {
                md.append(row(s + (r.values.containsKey("rep") ? " #" + fmt(r.values.get("rep")) : "")
                        + (r.values.containsKey("maintenance") ? ", maintenance " + r.values.get("maintenance") : ""),
                        r.values.get("partitions"), r.values.get("rows_per_s"), r.values.get("mb_per_s"),
                        r.values.get("cpu_s_per_m_rows"), r.values.get("cpu_s_per_m_rows_without_jit"),
                        r.num("thread_cpu_s") / r.num("rows") * 1e6,
                        r.values.get("cpu_s_per_gb"), r.values.get("alloc_kb_per_row"), r.values.get("heap_peak_mb"),
                        r.values.get("heap_live_peak_mb"), r.values.get("rss_peak_mb"), r.values.get("files"),
                        r.values.get("avg_file_mb")));
            }
        }
        md.append("\n| DLQ scenario | batches × rejects | rejects/s | ms per batch (PUT of one JSON Lines object) | CPU µs per reject | MB/s |\n|---|---|---|---|---|---|\n");
        for (Result r : rs) {
            String s = (String) r.values.get("scenario");
            if (s.startsWith("stage_dlq")) {
                md.append(row(s, fmt(r.values.get("batches")) + " × " + fmt(r.num("rejects") / r.num("batches")),
                        r.values.get("rejects_per_s"), r.values.get("ms_per_batch"), r.values.get("cpu_us_per_reject"),
                        r.values.get("dlq_mb_per_s")));
            }
        }

        md.append("\n| hostile record (convert, one thread) | bytes | outcome | CPU µs per record |\n|---|---|---|---|\n");
        for (Result r : rs) {
            String s = (String) r.values.get("scenario");
            if (s.startsWith("hostile_")) {
                md.append(row(s.substring("hostile_".length()), r.values.get("bytes"), r.values.get("outcome"),
                        r.values.get("cpu_us_per_record")));
            }
        }

        md.append("\n| schema versions cycled by GSR records (convert, one thread) | versions | cache versions / MB | records "
                + "| versions built | CPU µs per record |\n|---|---|---|---|---|---|\n");
        for (Result r : rs) {
            String s = (String) r.values.get("scenario");
            if (s.startsWith("versions_") && !s.equals("versions_retained")) {
                md.append(row(s.substring("versions_".length()), r.values.get("versions"),
                        fmt(r.values.get("cache_versions")) + " / " + fmt(r.values.get("cache_mb")),
                        r.values.get("records"), r.values.get("built"), r.values.get("cpu_us_per_record")));
            } else if (s.equals("versions_retained")) {
                md.append("\nOne built version (validator, fast path, converter) of a " + fmt(r.values.get("definition_chars"))
                        + "-character definition retains " + fmt(r.values.get("retained_kb_per_version")) + " KB: "
                        + fmt(r.values.get("retained_bytes_per_char")) + " bytes per character, estimated "
                        + fmt(r.values.get("estimated_bytes_per_char")) + ".\n");
            }
        }

        if (rs.stream().anyMatch(r -> "abuse".equals(r.values.get("scenario")))) {
            md.append("\n| flood (all-in-one, -Xmx512m) | connections / s | records / s: steady + forged | probe "
                    + "| signed answered | signed refused | p50 ms | p99 ms | max ms | heap peak MB "
                    + "| heap after GC peak MB | cores | answers to the flood | bench-channel commits "
                    + "| its freshness p50 / p99 / max s | dead letters of the forged versions |\n"
                    + "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
            for (Result r : rs) {
                if ("abuse".equals(r.values.get("scenario"))) {
                    boolean records = r.values.containsKey("steady_per_s");
                    md.append(row(r.values.get("flood"), r.values.get("connections_per_s"), records
                            ? fmt(r.values.get("steady_per_s")) + " + " + fmt(r.values.get("forged_per_s")) : null,
                            r.values.get("probe"), r.values.get("signed_answered"), r.values.get("signed_refused"),
                            r.values.get("signed_p50_ms"), r.values.get("signed_p99_ms"), r.values.get("signed_max_ms"),
                            r.values.get("heap_peak_mb"), r.values.get("heap_after_gc_peak_mb"), r.values.get("cores"),
                            answers(r.values.get("answers")), r.values.get("commits"),
                            records ? fmt(r.values.get("freshness_p50_s")) + " / "
                                    + fmt(r.values.get("freshness_p99_s")) + " / "
                                    + fmt(r.values.get("freshness_max_s")) : null,
                            records ? fmt(r.values.get("dead_letters")) + " of " + fmt(r.values.get("forged_appended"))
                                    : null));
                }
            }
        }

        for (Result r : rs) {
            if ("abuse_channels".equals(r.values.get("scenario"))) {
                md.append("\n| channels asked for by one account | created | refused | refusal p99 ms | seconds | ACTIVE "
                        + "| cores before / after | % of a core per idle channel | heap after GC MB before / after "
                        + "| heap KB per channel | threads | RSS peak MB |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
                md.append(row(r.values.get("attempts"), r.values.get("created"), r.values.get("refused"),
                        r.values.get("refusal_p99_ms"), r.values.get("create_seconds"), r.values.get("active"),
                        fmt(r.values.get("cores_before")) + " / " + fmt(r.values.get("cores_after")),
                        r.values.get("cpu_pct_of_core_per_channel"),
                        fmt(r.values.get("heap_mb_before")) + " / " + fmt(r.values.get("heap_mb_after")),
                        r.values.get("heap_kb_per_channel"), r.values.get("threads"), r.values.get("rss_peak_mb")));
            }
        }
        channels(md, rs.stream().filter(r -> "channels_idle".equals(r.values.get("scenario"))).toList());

        md.append("\n## Pipeline and scale (the packaged all-in-one, in-process source, -Xmx1g, freshness 10 s)\n\n");
        md.append("| scenario | shards | partitions | rows/s | MB/s JSON | rows/s to committed | CPU s / M rows | without JIT | CPU s / GB | alloc KB / row | heap peak MB | heap after GC peak MB | RSS peak MB | threads | commits | max files / partition / commit | avg file MB | source CPU s |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Result r : rs) {
            String s = (String) r.values.get("scenario");
            if (s.startsWith("pipeline") || s.equals("scale") || s.equals("profile_pipeline")) {
                md.append(row(s + (r.values.containsKey("rep") ? " #" + fmt(r.values.get("rep")) : "")
                        + (r.values.containsKey("maintenance") ? ", maintenance " + r.values.get("maintenance") : ""),
                        r.values.get("shards"), r.values.get("partitions"), r.values.get("rows_per_s"),
                        r.values.get("mb_per_s"), r.values.get("rows_per_s_to_committed"),
                        r.values.get("cpu_s_per_m_rows"), r.values.get("cpu_s_per_m_rows_without_jit"),
                        r.values.get("cpu_s_per_gb"), r.values.get("alloc_kb_per_row"), r.values.get("heap_peak_mb"),
                        r.values.get("heap_live_peak_mb"), r.values.get("rss_peak_mb"), r.values.get("threads"),
                        r.values.get("commits_in_run"), r.values.get("max_files_per_partition_per_commit"),
                        r.values.get("avg_file_mb"), r.values.get("source_cpu_s")));
            }
        }

        md.append("\nWhere the CPU goes (seconds of each thread group over the measured interval: the all-in-one's for the pipeline, the scenario JVM's for the floor and stages; "
                + "from /proc/PID/task; GC pauses from the collectors' MXBeans):\n\n| scenario | shards | partitions | CPU s by thread group | GC pause s |\n|---|---|---|---|---|\n");
        for (Result r : rs) {
            String s = (String) r.values.get("scenario");
            if (r.values.containsKey("cpu_by_thread_s") && !s.startsWith("profile")) {
                md.append(row(s + (r.values.containsKey("rep") ? " #" + fmt(r.values.get("rep")) : "")
                        + (r.values.containsKey("maintenance") ? ", maintenance " + r.values.get("maintenance") : ""),
                        r.values.get("shards"), r.values.get("partitions"), threads(r.values.get("cpu_by_thread_s")),
                        r.values.get("gc_pause_s")));
            }
        }

        md.append("\n## End to end with kinesis-local (4 shards, GetRecords limit 2 500)\n\n");
        md.append("Lag = commit time of the first snapshot whose shard watermark covers the record − return of its PutRecords "
                + "call; steady = records put after the first commit (which also creates the table in a cold JVM).\n\n");
        md.append("| freshness s | records | records/s | PutRecords call ms | steady lag p50 s | p90 s | p99 s | max s | all records p50 s | p99 s | max s | commit stage wait p50 / max s | commits | max files / partition / commit | delivered |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Result r : rs) {
            if ("e2e".equals(r.values.get("scenario"))) {
                md.append(row(r.values.get("freshness_s"), r.values.get("records"), r.values.get("records_per_s"),
                        r.values.get("put_call_ms_mean"), r.values.get("lag_p50_s"), r.values.get("lag_p90_s"),
                        r.values.get("lag_p99_s"), r.values.get("lag_max_s"), r.values.get("lag_all_p50_s"),
                        r.values.get("lag_all_p99_s"), r.values.get("lag_all_max_s"),
                        fmt(r.values.get("commit_stage_wait_p50_s")) + " / " + fmt(r.values.get("commit_stage_wait_max_s")),
                        r.values.get("commits"), r.values.get("max_files_per_partition_per_commit"),
                        r.values.get("delivered")));
            }
        }

        if (rs.stream().anyMatch(r -> "dist".equals(r.values.get("scenario")))) {
            md.append("\n## Distributed mode beside the all-in-one (4 shards, freshness 1 s)\n\n");
            md.append("Throughput: ingest stopped, a backlog put, ingest started again; rows/s from its readiness to the commit "
                    + "covering the last record, CPU of every process in between. Latency: at the steady rate of the column, "
                    + "`delivery_chunk_latency_seconds` of each stage (age of a chunk's oldest record when the stage hands it on; "
                    + "the worst instance); *added* = the stage's figure minus the one before it.\n\n");
            md.append("| deployment | processes | backlog | rows/s | CPU s per M rows | steady records/s | ingest p50 / p99 s "
                    + "| convert added p50 / p99 s | commit added p50 / p99 s | delivered |\n|---|---|---|---|---|---|---|---|---|---|\n");
            for (Result r : rs) {
                if ("dist".equals(r.values.get("scenario"))) {
                    md.append(row(r.values.get("mode"), r.values.get("processes"), r.values.get("backlog_records"),
                            r.values.get("rows_per_s"), r.values.get("cpu_s_per_million_rows"), r.values.get("steady_rate"),
                            fmt(r.values.get("latency_ingest_p50_s")) + " / " + fmt(r.values.get("latency_ingest_p99_s")),
                            fmt(r.values.get("added_convert_p50_s")) + " / " + fmt(r.values.get("added_convert_p99_s")),
                            fmt(r.values.get("added_commit_p50_s")) + " / " + fmt(r.values.get("added_commit_p99_s")),
                            r.values.get("delivered")));
                }
            }
        }

        List<Result> soak = soakRuns(rs);
        if (!soak.isEmpty()) {
            md.append("\n## Soak: freshness 1 s, 24 partitions, steady input, table maintenance off and on\n\n");
            md.append("| maintenance | seconds | rows/s in | commits | lag p99 s, first / last tenth | commit p50 ms, first / last tenth | commit p99 ms, first / last tenth | metadata.json KB | snapshots | data manifests | data files per partition avg / max | full-scan planning ms | maintenance runs | files compacted | maintenance CPU µs / row | CPU µs / row | RSS peak MB |\n");
            md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
            for (Result r : soak) {
                md.append(row(r.values.get("maintenance"), r.values.get("seconds"), r.values.get("rate"),
                        r.values.get("commits"),
                        fmt(r.values.get("first_tenth_lag_p99_s")) + " / " + fmt(r.values.get("last_tenth_lag_p99_s")),
                        fmt(r.values.get("first_tenth_commit_p50_ms")) + " / "
                                + fmt(r.values.get("last_tenth_commit_p50_ms")),
                        fmt(r.values.get("first_tenth_commit_p99_ms")) + " / "
                                + fmt(r.values.get("last_tenth_commit_p99_ms")),
                        r.values.get("metadata_json_kb"), r.values.get("snapshots"), r.values.get("data_manifests"),
                        fmt(r.values.get("data_files_per_partition_avg")) + " / "
                                + fmt(r.values.get("data_files_per_partition_max")),
                        r.values.get("scan_planning_ms"), r.values.get("maintenance_runs"),
                        r.values.get("files_compacted"), r.values.get("maintenance_cpu_us_per_row"),
                        r.values.get("cpu_us_per_row"), r.values.get("rss_peak_mb")));
            }
            md.append("\n![soak: lag and commit duration, first and last tenth](soak.png)\n");
        }

        md.append("\n## Ratios to the floor and targets\n\n");
        Result floor = median(rs, "floor", at("partitions", 24));
        // The repeated pipeline runs and the scale point of the same configuration (4 shards, 24 partitions).
        List<Result> pool = new ArrayList<>(rs.stream().filter(r -> "pipeline".equals(r.values.get("scenario"))).toList());
        Result samePoint = find(rs, "scale", at("shards", 4).and(at("partitions", 24)));
        if (samePoint != null) {
            pool.add(samePoint);
        }
        Result pipe = median(pool, r -> true);
        if (floor != null && pipe != null) {
            md.append("Ratios use the medians by rows/s: of the floor runs at 24 partitions (#" + fmt(floor.values.get("rep"))
                    + ") and of the pipeline runs at 4 shards, 24 partitions (" + pipe.values.get("scenario")
                    + (pipe.values.containsKey("rep") ? " #" + fmt(pipe.values.get("rep")) : "") + "). Per CPU-second, "
                    + "which the load of the shared machine disturbs less: floor " + fmt(1e6 / floor.num("cpu_s_per_m_rows"))
                    + " rows, pipeline " + fmt(1e6 / pipe.num("cpu_s_per_m_rows")) + " rows.\n\n");
        }
        md.append("| target | measured | met |\n|---|---|---|\n");
        if (floor != null && pipe != null) {
            double ratio = pipe.num("rows_per_s") / floor.num("rows_per_s");
            md.append(row("pipeline rows/s ≥ 90 % of the floor's", pct(ratio) + " (" + fmt(pipe.num("rows_per_s"))
                    + " vs " + fmt(floor.num("rows_per_s")) + ")", ratio >= 0.9));
            double cpu = pipe.num("cpu_s_per_m_rows") / floor.num("cpu_s_per_m_rows");
            md.append(row("CPU s per M rows ≤ 1.6 × the floor's", fmt(cpu) + " × (" + fmt(pipe.num("cpu_s_per_m_rows"))
                    + " vs " + fmt(floor.num("cpu_s_per_m_rows")) + ")", cpu <= 1.6));
            double steady = pipe.num("cpu_s_per_m_rows_without_jit") / floor.num("cpu_s_per_m_rows_without_jit");
            md.append(row("the same without the JIT compilers' CPU (steady state)", fmt(steady) + " × ("
                    + fmt(pipe.num("cpu_s_per_m_rows_without_jit")) + " vs "
                    + fmt(floor.num("cpu_s_per_m_rows_without_jit")) + ")", steady <= 1.6));
            Result bound = median(rs, "floor_convert", at("partitions", 24));
            if (bound != null) {
                double low = bound.num("cpu_s_per_m_rows") / floor.num("cpu_s_per_m_rows");
                md.append(row("floor + decode (the floor decoding each record as it writes, one thread, no reading)"
                        + " ≤ 1.25 × the floor's CPU", fmt(low) + " × (" + fmt(bound.num("cpu_s_per_m_rows"))
                        + "), leaving " + fmt(1.6 - low) + " × for reading, threads and their GC", low <= 1.25));
            }
        }
        if (pipe != null) {
            md.append(row("peak RSS of the all-in-one ≤ 1 GiB at full speed, 24 partitions",
                    fmt(pipe.num("rss_peak_mb")) + " MB", pipe.num("rss_peak_mb") <= 1024));
        }
        for (String scenario : List.of("stage_convert", "stage_convert_gsr", "stage_convert_gsr_zlib")) {
            Result conv = find(rs, scenario, r -> true);
            Result reference = find(rs, scenario + "_reference", r -> true);
            if (conv == null) {
                continue;
            }
            double perCore = conv.num("rows") / conv.num("thread_cpu_s");
            double referencePerCore = reference == null ? Double.NaN : reference.num("rows") / reference.num("thread_cpu_s");
            String measured = fmt(perCore) + " per CPU-second (" + fmt(conv.num("rows_per_s")) + " wall; fast path took "
                    + pct(conv.num("compiled_share")) + (reference == null ? "" : "; the reference alone "
                    + fmt(referencePerCore)) + ")";
            if (scenario.endsWith("zlib")) { // inflating the body is the same work on either path
                md.append(row("no regression with zlib (" + scenario + ", against the reference alone)", measured,
                        reference == null ? "–" : perCore >= referencePerCore));
            } else {
                md.append(row("validate + convert ≥ 300 000 records/s per core (" + scenario + ")", measured,
                        perCore >= 300_000));
            }
        }
        for (Result r : rs) {
            if ("e2e".equals(r.values.get("scenario")) && r.values.containsKey("lag_p99_s")) {
                double f = r.num("freshness_s");
                md.append(row("freshness lag p99 ≤ " + fmt(f) + " s + 2 s", fmt(r.num("lag_p99_s")) + " s (steady; all records "
                        + fmt(r.num("lag_all_p99_s")) + " s)",
                        r.num("lag_p99_s") <= f + 2));
            }
        }
        int maxFiles = 0;
        for (Result r : rs) {
            if (r.values.containsKey("max_files_per_partition_per_commit")) {
                maxFiles = Math.max(maxFiles, (int) r.num("max_files_per_partition_per_commit"));
            }
        }
        md.append(row("at most one data file per partition per commit per writer", "max " + maxFiles, maxFiles <= 1));
        md.append("\n![rows/s and heap against shards and partitions](scale.png)\n");
        return md.toString();
    }

    /** Status counts as "9 000 × 403, ..."; none as –. */
    private static String answers(Object v) {
        if (!(v instanceof Map<?, ?> m) || m.isEmpty()) {
            return "–";
        }
        StringBuilder sb = new StringBuilder();
        m.forEach((status, n) -> sb.append(sb.length() == 0 ? "" : ", ").append(fmt(n)).append(" × ").append(status));
        return sb.toString();
    }

    private static String threads(Object v) {
        if (!(v instanceof Map<?, ?> m)) {
            return "–";
        }
        StringBuilder sb = new StringBuilder();
        m.forEach((k, x) -> sb.append(sb.length() == 0 ? "" : ", ").append(k).append(' ').append(fmt(x)));
        return sb.toString();
    }

    private static String pct(double ratio) {
        return String.format(Locale.ROOT, "%.0f %%", ratio * 100);
    }

    static String row(Object... cells) {
        StringBuilder sb = new StringBuilder("|");
        for (Object c : cells) {
            sb.append(' ').append(c instanceof Boolean b ? (b ? "yes" : "**no**") : fmt(c)).append(" |");
        }
        return sb.append('\n').toString();
    }

    static String fmt(Object v) {
        if (v == null) {
            return "–";
        }
        if (v instanceof Number num) {
            double d = num.doubleValue();
            if (Double.isNaN(d)) {
                return "–";
            }
            if (d == Math.rint(d) && Math.abs(d) < 1e15) {
                return String.format(Locale.ROOT, "%,d", (long) d).replace(',', ' ');
            }
            if (Math.abs(d) >= 1000) {
                return String.format(Locale.ROOT, "%,.0f", d).replace(',', ' ');
            }
            if (Math.abs(d) >= 10) {
                return String.format(Locale.ROOT, "%.1f", d);
            }
            return String.format(Locale.ROOT, "%.2f", d);
        }
        return String.valueOf(v);
    }

    /** rows/s (top) and heap (bottom) against shards, one line per number of open partitions. */
    static void chart(List<Result> rs, Path png) throws IOException {
        List<Result> scale = rs.stream().filter(r -> "scale".equals(r.values.get("scenario"))
                && r.values.containsKey("rows_per_s")).toList();
        if (scale.isEmpty()) {
            return;
        }
        XYSeriesCollection rows = new XYSeriesCollection();
        XYSeriesCollection heap = new XYSeriesCollection();
        for (int hours : new TreeSet<>(scale.stream().map(r -> (int) r.num("partitions")).toList())) {
            XYSeries sRows = new XYSeries(hours + (hours == 1 ? " partition" : " partitions"));
            XYSeries sHeap = new XYSeries(hours + " partitions, heap peak");
            XYSeries sLive = new XYSeries(hours + " partitions, heap after GC peak");
            for (Result r : scale) {
                if (r.num("partitions") == hours && !Double.isNaN(r.num("rows_per_s"))) {
                    sRows.add(r.num("shards"), r.num("rows_per_s"));
                    sHeap.add(r.num("shards"), r.num("heap_peak_mb"));
                    sLive.add(r.num("shards"), r.num("heap_live_peak_mb"));
                }
            }
            rows.addSeries(sRows);
            heap.addSeries(sHeap);
            heap.addSeries(sLive);
        }
        LogAxis shards = new LogAxis("shards");
        shards.setBase(2);
        shards.setTickUnit(new org.jfree.chart.axis.NumberTickUnit(2));
        shards.setNumberFormatOverride(new java.text.DecimalFormat("0"));
        CombinedDomainXYPlot plot = new CombinedDomainXYPlot(shards);
        XYLineAndShapeRenderer r1 = new XYLineAndShapeRenderer(true, true);
        XYLineAndShapeRenderer r2 = new XYLineAndShapeRenderer(true, true);
        Color[] colors = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c)};
        for (int i = 0; i < rows.getSeriesCount(); i++) {
            r1.setSeriesPaint(i, colors[i % 3]);
            r1.setSeriesStroke(i, new BasicStroke(2f));
            r2.setSeriesPaint(2 * i, colors[i % 3]);
            r2.setSeriesStroke(2 * i, new BasicStroke(2f));
            r2.setSeriesPaint(2 * i + 1, colors[i % 3]);
            r2.setSeriesStroke(2 * i + 1, new BasicStroke(1.5f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND, 1f,
                    new float[] {6f, 4f}, 0f));
        }
        NumberAxis rowsAxis = new NumberAxis("rows/s (all-in-one, to Parquet buffers)");
        NumberAxis heapAxis = new NumberAxis("heap MB (-Xmx1g)");
        plot.add(new XYPlot(rows, null, rowsAxis, r1), 1);
        plot.add(new XYPlot(heap, null, heapAxis, r2), 1);
        JFreeChart chart = new JFreeChart("Pipeline scale: rows/s and heap against shards and open partitions",
                JFreeChart.DEFAULT_TITLE_FONT, plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        ChartUtils.saveChartAsPNG(png.toFile(), chart, 1000, 800);
    }
}
