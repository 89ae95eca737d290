package io.streamtables.bench;

import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ListChannelsResponse;

/**
 * Issue 39's many quiet channels on one all-in-one: {@code channels} channels of one shard each, every one on an idle
 * stream of its own (served by {@link FakeKinesis}, which answers empty), at the default freshness interval. What
 * they cost once ACTIVE, against the same all-in-one with its one bench channel: CPU (share of a core per channel),
 * heap after a full collection and RSS per channel, threads, and the GetRecords calls they make per second.
 */
final class ChannelsBench {

    private static final String STREAM = "bench-channels";

    private ChannelsBench() {
    }

    static Result run(Path dir, Path app, int channels, int seconds, String xmx) throws Exception {
        try (FakeKinesis idle = new FakeKinesis(STREAM, 1, 0, g -> Events.event(42, g, 24), 0)) {
            AppSetup setup = new AppSetup(dir, STREAM, 1, idle.endpoint(), 10_000);
            Map<String, String> config = new java.util.LinkedHashMap<>(setup.config);
            config.put("delivery.quotas.channels-per-account", Integer.toString(channels + 10));
            try (AllInOne aio = AllInOne.start(app, dir, xmx, List.of(), config);
                    KinesisClient api = KinesisClient.builder().endpointOverride(URI.create(aio.url()))
                            .region(Region.of(Setup.REGION)).httpClientBuilder(UrlConnectionHttpClient.builder())
                            .credentialsProvider(StaticCredentialsProvider.create(
                                    AwsBasicCredentials.create("test", "test")))
                            .build()) {
                Result r = new Result("channels_idle").put("channels", channels).put("seconds", seconds);
                Sample before = Sample.of(aio, idle, seconds);
                long began = System.nanoTime();
                create(api, channels);
                r.put("create_seconds", Math.round((System.nanoTime() - began) / 1e9));
                long deadline = System.currentTimeMillis() + 600_000;
                int active = 0;
                while (System.currentTimeMillis() < deadline && (active = active(api)) < channels + 1) {
                    Thread.sleep(2_000);
                }
                r.put("active", active).put("active_seconds", Math.round((System.nanoTime() - began) / 1e9));
                Thread.sleep(20_000); // the readers past their first calls, at their idle pace
                Sample after = Sample.of(aio, idle, seconds);
                int added = Math.max(1, active - 1);
                return r.put("cores_before", round(before.cores)).put("cores_after", round(after.cores))
                        .put("cpu_pct_of_core_per_channel", round(100 * (after.cores - before.cores) / added))
                        .put("heap_mb_before", before.heapBytes >> 20).put("heap_mb_after", after.heapBytes >> 20)
                        .put("heap_kb_per_channel", ((after.heapBytes - before.heapBytes) >> 10) / added)
                        .put("rss_mb_before", before.rssKb >> 10).put("rss_mb_after", after.rssKb >> 10)
                        .put("rss_kb_per_channel", (after.rssKb - before.rssKb) / added)
                        .put("threads_before", before.threads).put("threads_after", after.threads)
                        .put("getrecords_per_s", round(after.getRecordsPerSecond))
                        .put("getrecords_per_s_per_channel", round(after.getRecordsPerSecond / added));
            }
        }
    }

    /** CPU, GetRecords calls over {@code seconds}; then the heap after a full collection, RSS and threads. */
    private record Sample(double cores, double getRecordsPerSecond, long heapBytes, long rssKb, long threads) {
        static Sample of(AllInOne aio, FakeKinesis kinesis, int seconds) throws Exception {
            long cpu = aio.cpuNanos();
            long calls = kinesis.getRecordsCalls.get();
            long began = System.nanoTime();
            Thread.sleep(seconds * 1_000L);
            double elapsed = (System.nanoTime() - began) / 1e9;
            double cores = (aio.cpuNanos() - cpu) / (elapsed * 1e9);
            double callsPerSecond = (kinesis.getRecordsCalls.get() - calls) / elapsed;
            return new Sample(cores, callsPerSecond, aio.heapAfterGcBytes(), aio.rssKb(), aio.threads());
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

    /** ACTIVE channels, over every page of ListChannels. */
    private static int active(KinesisClient api) {
        int active = 0;
        String token = null;
        do {
            String page = token;
            ListChannelsResponse response = api.listChannels(r -> r.nextToken(page));
            active += (int) response.channelSummaries().stream()
                    .filter(c -> "ACTIVE".equals(c.channelStatusAsString())).count();
            token = response.nextToken();
        } while (token != null);
        return active;
    }

    private static double round(double value) {
        return Math.round(value * 1000) / 1000.0;
    }
}
