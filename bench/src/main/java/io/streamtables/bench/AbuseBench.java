package io.streamtables.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * Issue 36's slow-body flood against the packaged all-in-one at {@code -Xmx512m} with one principal: each second,
 * {@code connections} connections that declare a 2 MiB body and send all of it but 100 bytes, for {@code seconds};
 * meanwhile signed ListChannels of the official client (no retries), one after another, timed. Three phases: no
 * flood; the flood without a key (refused from its headers); the flood with the principal's key id and a wrong
 * signature (it passes the headers' checks, so it holds the body budget until the deadline cuts it). Then 10 000
 * CreateChannel calls of the one account, past its quota, and what the quota's worth of idle channels cost.
 */
final class AbuseBench {

    private static final int DECLARED = 2 << 20;
    private static final String STREAM = "bench-abuse";
    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
            .withZone(ZoneOffset.UTC);

    private AbuseBench() {
    }

    static List<Result> run(Path dir, Path app, int connections, int seconds) throws Exception {
        List<Result> results = new ArrayList<>();
        try (FakeKinesis idle = new FakeKinesis(STREAM, 1, 0, g -> Events.event(42, g, 24), 0);
                AllInOne aio = AllInOne.start(app, dir, "512m", List.of(),
                        new AppSetup(dir, STREAM, 1, idle.endpoint(), 10_000).config);
                KinesisClient api = KinesisClient.builder().endpointOverride(URI.create(aio.url()))
                        .region(Region.of(Setup.REGION)).httpClientBuilder(UrlConnectionHttpClient.builder())
                        .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                        .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry())).build()) {
            api.listChannels(r -> { }); // the client's first call loads its classes
            InetSocketAddress address = new InetSocketAddress("127.0.0.1", URI.create(aio.url()).getPort());
            results.add(phase("none", aio, api, address, null, 0, seconds));
            results.add(phase("unsigned", aio, api, address, null, connections, seconds));
            results.add(phase("wrong-signature", aio, api, address, "test", connections, seconds));
            results.add(channels(aio, api, CHANNEL_ATTEMPTS, seconds));
        }
        return results;
    }

    /** CreateChannel calls in the principal's account: the quota's worth are created, the rest refused. */
    static final int CHANNEL_ATTEMPTS = 10_000;

    /**
     * The account asks for {@code attempts} channels (each on an idle stream of its own): how many are created, how the
     * rest are refused and how long that takes; then the all-in-one's CPU and heap with the created ones ACTIVE and
     * idle, against the same interval before them.
     */
    private static Result channels(AllInOne aio, KinesisClient api, int attempts, int seconds) throws Exception {
        long heapBefore = aio.heapAfterGcBytes();
        long cpu = aio.cpuNanos();
        Thread.sleep(seconds * 1_000L);
        double coresBefore = (aio.cpuNanos() - cpu) / (seconds * 1e9);
        int before = api.listChannels(r -> { }).channelSummaries().size();

        Map<String, Integer> refused = new TreeMap<>();
        List<Long> refusalMillis = new ArrayList<>();
        long began = System.nanoTime();
        for (int n = 0; n < attempts; n++) {
            long call = System.nanoTime();
            try {
                createIdleChannel(api, n, 60);
            } catch (AwsServiceException e) {
                refused.merge(e.awsErrorDetails().errorCode(), 1, Integer::sum);
                refusalMillis.add((System.nanoTime() - call) / 1_000_000);
            }
        }
        double createSeconds = (System.nanoTime() - began) / 1e9;
        int created = api.listChannels(r -> { }).channelSummaries().size() - before;
        long deadline = System.currentTimeMillis() + 180_000;
        long active = 0;
        while (System.currentTimeMillis() < deadline) {
            active = api.listChannels(r -> { }).channelSummaries().stream()
                    .filter(c -> "ACTIVE".equals(c.channelStatusAsString())).count();
            if (active >= before + created) {
                break;
            }
            Thread.sleep(1_000);
        }
        aio.resetPeaks();
        cpu = aio.cpuNanos();
        Thread.sleep(seconds * 1_000L);
        double coresAfter = (aio.cpuNanos() - cpu) / (seconds * 1e9);
        long heapAfter = aio.heapAfterGcBytes();
        List<Long> sorted = refusalMillis.stream().sorted().toList();
        return new Result("abuse_channels").put("attempts", attempts).put("created", created).put("refused", refused)
                .put("refusal_p99_ms", percentile(sorted, 99)).put("create_seconds", Math.round(createSeconds))
                .put("active", active).put("cores_before", round(coresBefore)).put("cores_after", round(coresAfter))
                .put("cpu_pct_of_core_per_channel", round(100 * (coresAfter - coresBefore) / Math.max(1, created)))
                .put("heap_mb_before", heapBefore >> 20).put("heap_mb_after", heapAfter >> 20)
                .put("heap_kb_per_channel", ((heapAfter - heapBefore) >> 10) / Math.max(1, created))
                .put("threads", aio.threads()).put("rss_peak_mb", aio.rssPeakKb() >> 10);
    }

    /** Channel {@code i} on an idle stream of its own ({@code idle-stream-<i>}), delivering into table idle_<i>. */
    static void createIdleChannel(KinesisClient api, int i, int freshnessSeconds) {
        api.createChannel(r -> r.channelName("idle-" + i)
                .serviceExecutionRoleARN("arn:aws:iam::" + Setup.ACCOUNT + ":role/delivery")
                .streamConfigurationList(c -> c.streamARN(Setup.streamArn("idle-stream-" + i))
                        .recordConfiguration(rc -> rc.recordFormatType("JSON").gsrSchemaARN("arn:aws:glue:"
                                + Setup.REGION + ":" + Setup.ACCOUNT + ":schema/registry/events")))
                .s3TablesDestinationConfiguration(d -> d.dataFreshnessInSeconds(freshnessSeconds)
                        .deadLetterQueueS3Configuration(q -> q.bucketARN("arn:aws:s3:::" + AppSetup.DLQ_BUCKET)
                                .expectedBucketOwner(Setup.ACCOUNT))
                        .s3TablesConfigurationList(t -> t.tableBucketARN("arn:aws:s3tables:" + Setup.REGION
                                + ":" + Setup.ACCOUNT + ":bucket/tables").namespace("bench")
                                .tableName("idle_" + i).compressionType("ZSTD")
                                .partitionSpec(p -> p.partitionFields(f -> f.transform("TIME_HOUR")
                                        .sourceName(Events.PARTITION_FIELD))))));
    }

    private static double round(double value) {
        return Math.round(value * 1000) / 1000.0;
    }

    private static Result phase(String flood, AllInOne aio, KinesisClient api, InetSocketAddress address, String key,
            int connections, int seconds) throws Exception {
        aio.resetPeaks();
        List<Long> millis = Collections.synchronizedList(new ArrayList<>());
        List<String> refused = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean probing = new AtomicBoolean(true);
        Thread probe = new Thread(() -> {
            while (probing.get()) {
                long began = System.nanoTime();
                try {
                    api.listChannels(r -> { });
                    millis.add((System.nanoTime() - began) / 1_000_000);
                } catch (RuntimeException e) {
                    refused.add(e.getClass().getSimpleName());
                }
            }
        });
        probe.start();
        Map<String, Integer> answers = new TreeMap<>();
        List<Socket> open = new ArrayList<>();
        ExecutorService writers = Executors.newFixedThreadPool(16);
        try {
            for (int s = 0; s < seconds; s++) {
                long round = System.nanoTime();
                if (connections > 0) {
                    open.addAll(round(writers, address, head(key), connections));
                }
                Thread.sleep(Math.max(0, 1_000 - (System.nanoTime() - round) / 1_000_000));
            }
            probing.set(false);
            probe.join();
            List<Future<String>> statuses = new ArrayList<>();
            for (Socket s : open) {
                statuses.add(writers.submit(() -> status(s)));
            }
            for (Future<String> f : statuses) {
                answers.merge(f.get(), 1, Integer::sum);
            }
        } finally {
            writers.shutdownNow();
            for (Socket s : open) {
                s.close();
            }
        }
        List<Long> sorted = millis.stream().sorted().toList();
        return new Result("abuse").put("flood", flood).put("connections_per_s", connections).put("seconds", seconds)
                .put("signed_answered", sorted.size()).put("signed_refused", refused.size())
                .put("signed_p50_ms", percentile(sorted, 50)).put("signed_p99_ms", percentile(sorted, 99))
                .put("signed_max_ms", sorted.isEmpty() ? -1 : sorted.get(sorted.size() - 1))
                .put("heap_peak_mb", aio.heapPeakBytes() >> 20).put("heap_after_gc_peak_mb", aio.afterGcPeakBytes() >> 20)
                .put("answers", answers);
    }

    /** Opens the connections, sends each its head and all of its body but 100 bytes, and leaves them open. */
    private static List<Socket> round(ExecutorService writers, InetSocketAddress address, String head, int connections)
            throws Exception {
        byte[] chunk = new byte[64 << 10];
        java.util.Arrays.fill(chunk, (byte) 'x');
        List<Socket> sockets = new ArrayList<>();
        List<Future<?>> sent = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            Socket s = new Socket();
            s.connect(address, 5_000);
            s.setSoTimeout(30_000);
            sockets.add(s);
            sent.add(writers.submit(() -> {
                try {
                    OutputStream out = s.getOutputStream();
                    out.write(head.getBytes(StandardCharsets.ISO_8859_1));
                    for (int left = DECLARED - 100; left > 0; left -= chunk.length) {
                        out.write(chunk, 0, Math.min(left, chunk.length));
                    }
                } catch (IOException refused) {
                    // answered and closed: the rest of the body is not wanted
                }
            }));
        }
        for (Future<?> f : sent) {
            f.get();
        }
        return sockets;
    }

    private static String head(String key) {
        String now = AMZ_DATE.format(Instant.now());
        String authorization = key == null ? "" : "Authorization: AWS4-HMAC-SHA256 Credential=" + key + "/"
                + now.substring(0, 8) + "/" + Setup.REGION + "/kinesis/aws4_request, SignedHeaders=host;x-amz-date;"
                + "x-amz-target, Signature=" + "0".repeat(64) + "\r\n";
        return "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-amz-json-1.1\r\n"
                + "X-Amz-Target: Kinesis_20131202.ListChannels\r\nX-Amz-Date: " + now + "\r\n" + authorization
                + "Content-Length: " + DECLARED + "\r\n\r\n";
    }

    private static String status(Socket s) {
        try {
            InputStream in = s.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int c = in.read(); c != -1 && c != '\n' && line.length() < 200; c = in.read()) {
                line.append((char) c);
            }
            String[] parts = line.toString().split(" ");
            return parts.length > 1 ? parts[1] : "none";
        } catch (IOException e) {
            return "none";
        }
    }

    private static long percentile(List<Long> sorted, int p) {
        return sorted.isEmpty() ? -1 : sorted.get(Math.min(sorted.size() - 1, sorted.size() * p / 100));
    }
}
