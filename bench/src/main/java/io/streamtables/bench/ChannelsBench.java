package io.streamtables.bench;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ChannelSummary;
import software.amazon.awssdk.services.kinesis.model.ListChannelsResponse;

/**
 * Many quiet channels on one all-in-one: {@code channels} channels of one shard each, every one on an idle
 * stream of its own (served by {@link FakeKinesis}, which answers empty), at the default freshness interval. What
 * they cost once ACTIVE, against the same all-in-one with its one bench channel: CPU (share of a core per channel),
 * heap after a full collection and RSS per channel, threads, and the GetRecords calls they make per second. Then a
 * tenth of them turn active: their interval updated to {@code activeFreshness}, a few records a second each
 * appended to their streams; what the all-in-one costs then, and each commit's freshness (the age of its oldest
 * record, from its arrival in the stream, as the commit stage logs it), with every record appended committed. Each
 * active channel's first records create its table: until all of them are committed the time is reported apart
 * ({@code first_delivery_s}), and only the commits after it count towards the freshness.
 */
final class ChannelsBench {

    private static final String STREAM = "bench-channels";

    private ChannelsBench() {
    }

    /** A commit's log line: its rows, the channel's name and the age of its oldest record. */
    private static final Pattern COMMITTED =
            Pattern.compile("Committed (\\d+) rows in \\d+ files and (\\d+) dead letters .* \\((idle-\\d+)\\), "
                    + "freshness (\\d+) ms");

    /** The services the bench runs against, already started. */
    interface Stages extends AutoCloseable {
        String url();

        List<AllInOne> processes();

        /** The log of the process that commits. */
        Path commitLog();
    }

    /** The distributed services over Kafka and PostgreSQL ({@link DistributedBench}), one instance of each. */
    record Distributed(Path services, String kafka, String postgres) {
    }

    /**
     * @param distributed null: the all-in-one at {@code xmx}
     */
    static Result run(Path dir, Path app, Distributed distributed, int channels, int seconds, String xmx,
            int activeFreshness, int activeRate) throws Exception {
        String database = "st_bench_channels_" + Long.toString(System.currentTimeMillis(), 36);
        try (FakeKinesis idle = new FakeKinesis(STREAM, 1, 0, g -> Events.event(42, g, 24), 0)) {
            AppSetup setup = new AppSetup(dir, STREAM, 1, idle.endpoint(), 10_000);
            Map<String, String> config = new java.util.LinkedHashMap<>(setup.config);
            config.put("delivery.quotas.channels-per-account", Integer.toString(channels + 10));
            if (distributed != null) {
                String url = DistributedBench.createDatabase(distributed.postgres(), database);
                Setup.catalogProperties(dir.resolve("catalog")).forEach((k, v) -> config.put("delivery.catalog." + k, v));
                config.put("delivery.catalog.uri", url);
                config.put("delivery.database-url", url);
                config.put("kafka.bootstrap.servers", distributed.kafka());
            }
            try (Stages stages = distributed == null ? allInOne(app, dir, xmx, config)
                    : DistributedBench.Deployment.started(app, distributed.services(), dir, config);
                    KinesisClient api = KinesisClient.builder().endpointOverride(URI.create(stages.url()))
                            .region(Region.of(Setup.REGION)).httpClientBuilder(UrlConnectionHttpClient.builder())
                            .credentialsProvider(StaticCredentialsProvider.create(
                                    AwsBasicCredentials.create("test", "test")))
                            .build()) {
                Result r = new Result("channels_idle").put("mode", distributed == null ? "all-in-one" : "distributed")
                        .put("processes", stages.processes().size()).put("channels", channels)
                        .put("seconds", seconds);
                Sample before = Sample.of(stages, idle, seconds);
                long began = System.nanoTime();
                create(api, channels);
                r.put("create_seconds", Math.round((System.nanoTime() - began) / 1e9));
                long deadline = System.currentTimeMillis() + 600_000;
                int active = 0;
                while (System.currentTimeMillis() < deadline && (active = active(api)) < channels + 1) {
                    Thread.sleep(2_000);
                }
                r.put("active", active).put("active_seconds", Math.round((System.nanoTime() - began) / 1e9));
                Thread.sleep(60_000); // the readers at their idle pace, the JIT done with their path
                Sample after = Sample.of(stages, idle, seconds);
                int added = Math.max(1, active - 1);
                r.put("cores_before", round(before.cores)).put("cores_after", round(after.cores))
                        .put("cpu_pct_of_core_per_channel", round(100 * (after.cores - before.cores) / added))
                        .put("heap_mb_before", before.heapBytes >> 20).put("heap_mb_after", after.heapBytes >> 20)
                        .put("heap_kb_per_channel", ((after.heapBytes - before.heapBytes) >> 10) / added)
                        .put("rss_mb_before", before.rssKb >> 10).put("rss_mb_after", after.rssKb >> 10)
                        .put("rss_kb_per_channel", (after.rssKb - before.rssKb) / added)
                        .put("threads_before", before.threads).put("threads_after", after.threads)
                        .put("getrecords_per_s", round(after.getRecordsPerSecond))
                        .put("getrecords_per_s_per_channel", round(after.getRecordsPerSecond / added));
                profileIdle(stages, dir, channels);
                active(r, stages, api, idle, channels, seconds, activeFreshness, activeRate);
                return r;
            }
        } finally {
            if (distributed != null) {
                DistributedBench.dropDatabase(distributed.postgres(), database);
            }
        }
    }

    /**
     * Where the idle channels' CPU goes: 20 s of JFR (after the measurement: its sampling costs CPU too) of the
     * process that reads the streams, summed by {@link JfrSummary} into {@code channels-idle-N-MODE.txt}.
     */
    private static void profileIdle(Stages stages, Path dir, int channels) throws Exception {
        AllInOne reader = stages.processes().get(0); // the all-in-one, or the ingest instance
        Path jfr = dir.resolve("channels-idle.jfr");
        reader.jfrStart(jfr);
        Thread.sleep(20_000);
        reader.jfrStop();
        Path out = dir.resolve("channels-idle-" + channels + "-" + stages.processes().size() + ".txt");
        JfrSummary.write(jfr, out);
        System.err.println("where the idle channels' CPU goes: " + out);
    }

    private static Stages allInOne(Path app, Path dir, String xmx, Map<String, String> config) throws Exception {
        AllInOne aio = AllInOne.start(app, dir, xmx, List.of(), config);
        return new Stages() {
            @Override
            public String url() {
                return aio.url();
            }

            @Override
            public List<AllInOne> processes() {
                return List.of(aio);
            }

            @Override
            public Path commitLog() {
                return aio.log();
            }

            @Override
            public void close() throws Exception {
                aio.close();
            }
        };
    }

    /**
     * Every tenth channel at {@code freshness} s, {@code rate} records a second appended to each of their streams for
     * {@code seconds} and the interval twice; then the commits' freshness and rows, until all are committed.
     */
    private static void active(Result r, Stages stages, KinesisClient api, FakeKinesis source, int channels,
            int seconds, int freshness, int rate) throws Exception {
        Map<String, String> arns = new java.util.HashMap<>();
        summaries(api).forEach(c -> arns.put(c.channelName(), c.channelARN()));
        List<Integer> busy = java.util.stream.IntStream.range(0, channels).filter(i -> i % 10 == 0).boxed().toList();
        for (int i : busy) {
            source.live("idle-stream-" + i);
            api.updateChannel(q -> q.channelARN(arns.get("idle-" + i))
                    .s3TablesDestinationConfiguration(d -> d.dataFreshnessInSeconds(freshness)));
        }
        Thread.sleep(5_000); // every stage has read the new interval
        // a channel's first records create its table: timed apart, the measured commits are the steady ones
        long firstFrom = Files.size(stages.commitLog());
        long firstBegan = System.nanoTime();
        for (int i : busy) {
            source.append("idle-stream-" + i, Events.event(8, i, 1));
        }
        Tally first = awaitCommitted(stages, firstFrom, busy.size(), (freshness + 120) * 1000L);
        r.put("first_delivery_s", round((System.nanoTime() - firstBegan) / 1e9))
                .put("first_freshness_p50_s", percentile(first.freshnessMillis(), 50) / 1000.0)
                .put("first_freshness_max_s", percentile(first.freshnessMillis(), 100) / 1000.0);
        if (first.records() != busy.size()) {
            throw new IllegalStateException("the active channels' first records: " + busy.size() + " appended, "
                    + first.records() + " committed; see " + stages.commitLog());
        }
        long logFrom = Files.size(stages.commitLog());
        Map<String, StageLatency> latencyBefore = StageLatency.scrape(stages);
        long cpu = cpuNanos(stages);
        long calls = source.getRecordsCalls.get();
        long began = System.nanoTime();
        long appended = 0;
        long produceMillis = Math.max(seconds, 2L * freshness) * 1000L;
        List<Map<String, Long>> threadCpuBefore = threadCpu(stages);
        List<Map<String, Long>> threadCpuWarm = null;
        long warmFrom = -1;
        for (long t = 0, start = System.currentTimeMillis(); t < produceMillis; t += 1000 / rate) {
            long wait = start + t - System.currentTimeMillis();
            if (wait > 0) {
                Thread.sleep(wait);
            }
            for (int i : busy) {
                source.append("idle-stream-" + i, Events.event(7, appended++, 1)); // one hour: a file per commit
            }
            if (threadCpuWarm == null && t >= WARMING_MILLIS) {
                threadCpuWarm = threadCpu(stages);
                warmFrom = Files.size(stages.commitLog());
            }
        }
        double elapsed = (System.nanoTime() - began) / 1e9;
        threadCpu(r, stages, "first_30s", threadCpuBefore, threadCpuWarm != null ? threadCpuWarm : threadCpu(stages));
        if (threadCpuWarm != null) {
            threadCpu(r, stages, "after_30s", threadCpuWarm, threadCpu(stages));
        }
        r.put("active_channels", busy.size()).put("active_freshness_s", freshness).put("active_rate", rate)
                .put("active_cores", round((cpuNanos(stages) - cpu) / (elapsed * 1e9)))
                .put("active_threads", stages.processes().stream().mapToLong(AllInOne::threads).sum())
                .put("active_getrecords_per_s", round((source.getRecordsCalls.get() - calls) / elapsed))
                .put("appended", appended);
        Tally tally = awaitCommitted(stages, logFrom, appended, (freshness + 60) * 1000L);
        r.put("committed", tally.rows()).put("dead_letters", tally.deadLetters())
                .put("commits", tally.freshnessMillis().size())
                .put("freshness_p50_s", percentile(tally.freshnessMillis(), 50) / 1000.0)
                .put("freshness_p99_s", percentile(tally.freshnessMillis(), 99) / 1000.0)
                .put("freshness_max_s", percentile(tally.freshnessMillis(), 100) / 1000.0);
        if (warmFrom >= 0) {
            List<Long> warm = tally(stages, warmFrom).freshnessMillis();
            r.put("freshness_after_30s_p50_s", percentile(warm, 50) / 1000.0)
                    .put("freshness_after_30s_p99_s", percentile(warm, 99) / 1000.0)
                    .put("freshness_after_30s_max_s", percentile(warm, 100) / 1000.0);
        }
        // where the lateness is added: each stage's chunks' age when it hands them on, over the steady phase
        StageLatency.scrape(stages).forEach((stage, after) -> {
            StageLatency steady = after.since(latencyBefore.getOrDefault(stage, StageLatency.NONE));
            r.put(stage + "_latency_mean_s", round(steady.meanSeconds()))
                    .put(stage + "_latency_p99_max_s", round(after.p99MaxSeconds()));
        });
        if (tally.rows() != appended) {
            throw new IllegalStateException(appended + " records appended to the active channels, " + tally.rows()
                    + " committed; see " + stages.commitLog());
        }
    }

    /** The production's first seconds, which follow the idle phase: their CPU is reported apart from the rest. */
    private static final long WARMING_MILLIS = 30_000;

    private static List<Map<String, Long>> threadCpu(Stages stages) {
        return stages.processes().stream().map(p -> ThreadCpu.snapshot(p.pid())).toList();
    }

    /** Each process's CPU seconds by kind of thread between two snapshots, as {@code cpu_WINDOW_PROCESS_KIND_s}. */
    private static void threadCpu(Result r, Stages stages, String window, List<Map<String, Long>> before,
            List<Map<String, Long>> after) {
        for (int i = 0; i < after.size(); i++) {
            String process = stages.processes().get(i).log().getParent().getFileName().toString();
            Map<String, Double> seconds = ThreadCpu.delta(before.get(i), after.get(i));
            seconds.forEach((kind, s) -> r.put("cpu_" + window + "_" + process + "_" + kind.split(" ")[0] + "_s", s));
            System.err.println("CPU s by thread, " + window + " of the production, " + process + ": " + seconds);
        }
    }

    /** What the commit log shows committed past {@code logFrom}: rows, dead letters, each commit's freshness sorted. */
    private record Tally(long rows, long deadLetters, List<Long> freshnessMillis) {
        long records() {
            return rows + deadLetters;
        }
    }

    /** The commit log's tally past {@code logFrom}, once it holds {@code expected} records or after {@code millis}. */
    private static Tally awaitCommitted(Stages stages, long logFrom, long expected, long millis) throws Exception {
        long deadline = System.currentTimeMillis() + millis;
        Tally tally;
        do {
            Thread.sleep(2_000);
            tally = tally(stages, logFrom);
        } while (tally.records() < expected && System.currentTimeMillis() < deadline);
        return tally;
    }

    /** What the commit log holds past {@code logFrom}. */
    private static Tally tally(Stages stages, long logFrom) throws IOException {
        byte[] log = Files.readAllBytes(stages.commitLog());
        String since = new String(log, (int) logFrom, log.length - (int) logFrom, StandardCharsets.UTF_8);
        long rows = 0;
        long deadLetters = 0;
        List<Long> freshnessMillis = new ArrayList<>();
        for (Matcher m = COMMITTED.matcher(since); m.find(); ) {
            rows += Long.parseLong(m.group(1));
            deadLetters += Long.parseLong(m.group(2));
            freshnessMillis.add(Long.parseLong(m.group(4)));
        }
        Collections.sort(freshnessMillis);
        return new Tally(rows, deadLetters, freshnessMillis);
    }

    /**
     * A stage's {@code delivery.chunk.latency} summed over the channels and processes: the age of a chunk's oldest
     * record when the stage handed the chunk on (count and sum since the start), and the largest of the channels'
     * p99 over the last minute.
     */
    record StageLatency(double count, double sumSeconds, double p99MaxSeconds) {
        static final StageLatency NONE = new StageLatency(0, 0, 0);
        private static final Pattern LINE = Pattern.compile(
                "(?m)^delivery_chunk_latency_seconds(_count|_sum)?\\{([^}]*)\\} (\\S+)$");
        private static final Pattern STAGE = Pattern.compile("stage=\"(\\w+)\"");

        StageLatency since(StageLatency before) {
            return new StageLatency(count - before.count, sumSeconds - before.sumSeconds, p99MaxSeconds);
        }

        double meanSeconds() {
            return count == 0 ? 0 : sumSeconds / count;
        }

        /** Every process's metrics, by stage. */
        static Map<String, StageLatency> scrape(Stages stages) throws java.io.IOException {
            Map<String, StageLatency> byStage = new java.util.TreeMap<>();
            for (AllInOne p : stages.processes()) {
                for (Matcher m = LINE.matcher(p.management("/q/metrics")); m.find(); ) {
                    Matcher stage = STAGE.matcher(m.group(2));
                    String suffix = m.group(1);
                    if (!stage.find() || suffix == null && !m.group(2).contains("quantile=\"0.99\"")) {
                        continue;
                    }
                    double v = Double.parseDouble(m.group(3));
                    StageLatency add = suffix == null ? new StageLatency(0, 0, v)
                            : suffix.equals("_count") ? new StageLatency(v, 0, 0) : new StageLatency(0, v, 0);
                    byStage.merge(stage.group(1), add, (a, b) -> new StageLatency(a.count + b.count,
                            a.sumSeconds + b.sumSeconds, Math.max(a.p99MaxSeconds, b.p99MaxSeconds)));
                }
            }
            return byStage;
        }
    }

    /** The nearest-rank percentile; 0 of none. */
    private static long percentile(List<Long> sorted, int p) {
        return sorted.isEmpty() ? 0 : sorted.get(Math.max(0, (int) Math.ceil(p / 100.0 * sorted.size()) - 1));
    }

    private static long cpuNanos(Stages stages) throws java.io.IOException {
        long sum = 0;
        for (AllInOne p : stages.processes()) {
            sum += p.cpuNanos();
        }
        return sum;
    }

    /** CPU, GetRecords calls over {@code seconds}; then the heap after a full collection, RSS and threads, summed. */
    private record Sample(double cores, double getRecordsPerSecond, long heapBytes, long rssKb, long threads) {
        static Sample of(Stages stages, FakeKinesis kinesis, int seconds) throws Exception {
            long cpu = cpuNanos(stages);
            long calls = kinesis.getRecordsCalls.get();
            long began = System.nanoTime();
            Thread.sleep(seconds * 1_000L);
            double elapsed = (System.nanoTime() - began) / 1e9;
            double cores = (cpuNanos(stages) - cpu) / (elapsed * 1e9);
            double callsPerSecond = (kinesis.getRecordsCalls.get() - calls) / elapsed;
            long heap = 0;
            long rss = 0;
            long threads = 0;
            for (AllInOne p : stages.processes()) {
                heap += p.heapAfterGcBytes();
                rss += p.rssKb();
                threads += p.threads();
            }
            return new Sample(cores, callsPerSecond, heap, rss, threads);
        }
    }

    /** The channels, four CreateChannel calls at a time. */
    private static void create(KinesisClient api, int channels) throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(4);
        AtomicInteger next = new AtomicInteger();
        try {
            List<Future<Object>> done = callers.invokeAll(java.util.Collections.nCopies(4, () -> {
                for (int i = next.getAndIncrement(); i < channels; i = next.getAndIncrement()) {
                    AbuseBench.createIdleChannel(api, i, 300);
                }
                return null;
            }));
            for (Future<Object> f : done) {
                f.get();
            }
        } finally {
            callers.shutdownNow();
        }
    }

    /** ACTIVE channels. */
    private static int active(KinesisClient api) {
        return (int) summaries(api).stream().filter(c -> "ACTIVE".equals(c.channelStatusAsString())).count();
    }

    /** Every page of ListChannels. */
    private static List<ChannelSummary> summaries(KinesisClient api) {
        List<ChannelSummary> all = new ArrayList<>();
        String token = null;
        do {
            String page = token;
            ListChannelsResponse response = api.listChannels(r -> r.nextToken(page));
            all.addAll(response.channelSummaries());
            token = response.nextToken();
        } while (token != null);
        return all;
    }

    private static double round(double value) {
        return Math.round(value * 1000) / 1000.0;
    }
}
