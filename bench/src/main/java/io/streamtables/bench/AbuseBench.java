package io.streamtables.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.DataFormat;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * Floods against the packaged all-in-one at {@code -Xmx512m} with three principals: the operator's ({@code service},
 * key id {@code test}, whose account owns {@code bench-channel}), {@code tenant-a} and {@code tenant-b}. In every phase
 * tenant-b calls ListChannels signed with the official client (no retries), one call after another, timed: what
 * another tenant sees while the flood runs. Each head flood opens {@code connections} connections a second, for
 * {@code seconds}, that each declare a 2 MiB ListChannels body: no flood; without a key (refused from its headers);
 * with tenant-a's key id and a wrong signature, each sending all of its body but 100 bytes (it passes the headers'
 * checks, so it holds tenant-a's share of the body budget until the deadline cuts it); with the stages' key id and a
 * wrong signature, heads alone (nothing arrives, so nothing is held; the least body rate cuts them). Then tenant-b's
 * GSR_JSON channel on a live stream whose producer names a new random schema version id in every record, beside
 * bench-channel's steady records, after a phase of bench-channel's records alone: bench-channel's freshness with and
 * without the forged versions. Then 10 000 CreateChannel calls of the operator's account, past its quota, and what the
 * quota's worth of idle channels cost.
 */
final class AbuseBench {

    private static final int DECLARED = 2 << 20;
    private static final String STREAM = "bench-abuse";
    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
            .withZone(ZoneOffset.UTC);

    /** The stages' principal's key id (the shipped compose and Kubernetes files name it too). */
    private static final String SERVICE_KEY = "test";
    static final Tenant TENANT_A = new Tenant("tenant-a", "TENANTAKEY", "111111111111");
    static final Tenant TENANT_B = new Tenant("tenant-b", "TENANTBKEY", "222222222222");

    /** Tenant-b's channel and its stream (in tenant-b's account: the fake Kinesis serves any account's). */
    private static final String FORGED_CHANNEL = "forged-versions";
    private static final String FORGED_STREAM = "forged-versions";
    private static final String TENANT_B_DLQ = "dlq-tenant-b";
    /** Records a second: tenant-b's, each naming a new version id, and bench-channel's valid ones. */
    static final int FORGED_RATE = 2_000;
    static final int STEADY_RATE = 100;
    /** bench-channel's interval in this run: short, so that commits held back show. */
    static final int FRESHNESS = 2;

    /** A commit's log line: its rows, dead letters, channel and the age of its oldest record. */
    private static final Pattern COMMITTED = Pattern.compile(
            "Committed (\\d+) rows in \\d+ files and (\\d+) dead letters to .* \\(([^)]+)\\), freshness (\\d+) ms");

    private AbuseBench() {
    }

    /** A principal of the run's configuration. */
    record Tenant(String name, String key, String account) {
        String secret() {
            return key + "-secret";
        }

        void into(Map<String, String> config) {
            config.put("delivery.auth.principals." + name + ".access-key-id", key);
            config.put("delivery.auth.principals." + name + ".secret-access-key", secret());
            config.put("delivery.auth.principals." + name + ".account-id", account);
        }

        StaticCredentialsProvider credentials() {
            return StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret()));
        }
    }

    static List<Result> run(Path dir, Path app, int connections, int seconds) throws Exception {
        List<Result> results = new ArrayList<>();
        try (FakeKinesis kinesis = new FakeKinesis(STREAM, 1, 0, g -> Events.event(42, g, 24), 0)) {
            kinesis.live(STREAM); // bench-channel's records, appended in the records-only and forged-versions phases
            kinesis.live(FORGED_STREAM);
            Map<String, String> config = new LinkedHashMap<>(
                    new AppSetup(dir, STREAM, FRESHNESS, kinesis.endpoint(), 10_000).config);
            TENANT_A.into(config);
            TENANT_B.into(config);
            // the service writes tenant-b's dead letters as itself: only the operator can name tenant-b's bucket
            config.put("delivery.accounts.\"" + TENANT_B.account() + "\".dlq-buckets", TENANT_B_DLQ);
            AppSetup.createBucket(config.get("quarkus.s3.endpoint-override"), TENANT_B_DLQ);
            try (AllInOne aio = AllInOne.start(app, dir, "512m", List.of(), config);
                    KinesisClient operator = client(aio, StaticCredentialsProvider.create(
                            AwsBasicCredentials.create(SERVICE_KEY, "test")));
                    KinesisClient probe = client(aio, TENANT_B.credentials())) {
                probe.listChannels(r -> { }); // the client's first call loads its classes
                InetSocketAddress address = new InetSocketAddress("127.0.0.1", URI.create(aio.url()).getPort());
                results.add(phase("none", aio, probe, seconds, new Heads(address, null, 0, 0)));
                results.add(phase("unsigned", aio, probe, seconds, new Heads(address, null, connections,
                        DECLARED - 100)));
                results.add(phase("wrong-signature", aio, probe, seconds, new Heads(address, TENANT_A.key(),
                        connections, DECLARED - 100)));
                results.add(phase("key-id-heads", aio, probe, seconds, new Heads(address, SERVICE_KEY, connections,
                        0)));
                createForgedChannel(aio, probe);
                prime(aio, kinesis);
                results.add(phase("records-only", aio, probe, seconds, new Records(aio, kinesis, 0)));
                results.add(phase("forged-versions", aio, probe, seconds, new Records(aio, kinesis, FORGED_RATE)));
                results.add(channels(aio, operator, CHANNEL_ATTEMPTS, seconds));
            }
        }
        return results;
    }

    private static KinesisClient client(AllInOne aio, StaticCredentialsProvider credentials) {
        return KinesisClient.builder().endpointOverride(URI.create(aio.url())).region(Region.of(Setup.REGION))
                .httpClientBuilder(UrlConnectionHttpClient.builder()).credentialsProvider(credentials)
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry())).build();
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

    /**
     * {@code seconds} of {@code flood}, a second's worth at a time, while tenant-b's probe runs; then the probe's
     * figures, the all-in-one's heap and CPU over the flood, and the flood's own.
     */
    private static Result phase(String name, AllInOne aio, KinesisClient probe, int seconds, Flood flood)
            throws Exception {
        aio.resetPeaks();
        List<Long> millis = Collections.synchronizedList(new ArrayList<>());
        List<String> refused = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean probing = new AtomicBoolean(true);
        Thread prober = new Thread(() -> {
            while (probing.get()) {
                long began = System.nanoTime();
                try {
                    probe.listChannels(r -> { });
                    millis.add((System.nanoTime() - began) / 1_000_000);
                } catch (RuntimeException e) {
                    refused.add(e.getClass().getSimpleName());
                }
            }
        });
        Result r = new Result("abuse").put("flood", name).put("probe", TENANT_B.name()).put("seconds", seconds);
        try (flood) {
            long cpu = aio.cpuNanos();
            long began = System.nanoTime();
            prober.start();
            for (int s = 0; s < seconds; s++) {
                long round = System.nanoTime();
                flood.second();
                Thread.sleep(Math.max(0, 1_000 - (System.nanoTime() - round) / 1_000_000));
            }
            probing.set(false);
            prober.join();
            r.put("cores", round((aio.cpuNanos() - cpu) / ((System.nanoTime() - began) / 1e9) / 1e9));
            flood.finish(r);
        } finally {
            probing.set(false);
        }
        List<Long> sorted = millis.stream().sorted().toList();
        return r.put("signed_answered", sorted.size()).put("signed_refused", refused.size())
                .put("signed_p50_ms", percentile(sorted, 50)).put("signed_p99_ms", percentile(sorted, 99))
                .put("signed_max_ms", sorted.isEmpty() ? -1 : sorted.get(sorted.size() - 1))
                .put("heap_peak_mb", aio.heapPeakBytes() >> 20)
                .put("heap_after_gc_peak_mb", aio.afterGcPeakBytes() >> 20);
    }

    /** What a phase does beside the probe. */
    private interface Flood extends AutoCloseable {
        /** A second's worth of it (at most a second long). */
        void second() throws Exception;

        /** Once the seconds are over: its own figures. */
        void finish(Result r) throws Exception;

        @Override
        default void close() throws IOException {
        }
    }

    /**
     * Each second, {@code connections} connections that declare a 2 MiB ListChannels body, signed with {@code key}'s
     * id and a wrong signature (none without a key), and send {@code bodyBytes} of it, never the rest; their answers
     * are read once the seconds are over.
     */
    private static final class Heads implements Flood {
        private final InetSocketAddress address;
        private final String key;
        private final int connections;
        private final int bodyBytes;
        private final List<Socket> open = new ArrayList<>();
        private final ExecutorService writers = Executors.newFixedThreadPool(16);

        Heads(InetSocketAddress address, String key, int connections, int bodyBytes) {
            this.address = address;
            this.key = key;
            this.connections = connections;
            this.bodyBytes = bodyBytes;
        }

        @Override
        public void second() throws Exception {
            byte[] chunk = new byte[64 << 10];
            java.util.Arrays.fill(chunk, (byte) 'x');
            byte[] head = head(key).getBytes(StandardCharsets.ISO_8859_1);
            List<Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                Socket s = new Socket();
                s.connect(address, 5_000);
                s.setSoTimeout(30_000);
                open.add(s);
                sent.add(writers.submit(() -> {
                    try {
                        OutputStream out = s.getOutputStream();
                        out.write(head);
                        for (int left = bodyBytes; left > 0; left -= chunk.length) {
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
        }

        @Override
        public void finish(Result r) throws Exception {
            List<Future<String>> statuses = new ArrayList<>();
            for (Socket s : open) {
                statuses.add(writers.submit(() -> status(s)));
            }
            Map<String, Integer> answers = new TreeMap<>();
            for (Future<String> f : statuses) {
                answers.merge(f.get(), 1, Integer::sum);
            }
            r.put("connections_per_s", connections).put("body_bytes", bodyBytes).put("answers", answers);
        }

        @Override
        public void close() throws IOException {
            writers.shutdownNow();
            for (Socket s : open) {
                s.close();
            }
        }
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

    /**
     * Tenant-b's GSR_JSON channel on {@link #FORGED_STREAM}: its schema registered as tenant-b through the official
     * Glue client, its dead letters in the bucket the operator allows tenant-b; ACTIVE when this returns.
     */
    private static void createForgedChannel(AllInOne aio, KinesisClient tenantB) throws Exception {
        String schemaArn;
        try (GlueClient glue = GlueClient.builder().endpointOverride(URI.create(aio.url()))
                .region(Region.of(Setup.REGION)).httpClientBuilder(UrlConnectionHttpClient.builder())
                .credentialsProvider(TENANT_B.credentials()).build()) {
            glue.createRegistry(r -> r.registryName("registry"));
            schemaArn = glue.createSchema(r -> r.registryId(id -> id.registryName("registry")).schemaName("events")
                    .dataFormat(DataFormat.JSON).compatibility("NONE").schemaDefinition(Events.SCHEMA)).schemaArn();
        }
        String account = TENANT_B.account();
        tenantB.createChannel(r -> r.channelName(FORGED_CHANNEL)
                .serviceExecutionRoleARN("arn:aws:iam::" + account + ":role/delivery")
                .streamConfigurationList(c -> c.streamARN("arn:aws:kinesis:" + Setup.REGION + ":" + account
                        + ":stream/" + FORGED_STREAM)
                        .recordConfiguration(rc -> rc.recordFormatType("GSR_JSON").gsrSchemaARN(schemaArn)))
                .s3TablesDestinationConfiguration(d -> d.dataFreshnessInSeconds(FRESHNESS)
                        .deadLetterQueueS3Configuration(q -> q.bucketARN("arn:aws:s3:::" + TENANT_B_DLQ)
                                .expectedBucketOwner(account))
                        .s3TablesConfigurationList(t -> t.tableBucketARN("arn:aws:s3tables:" + Setup.REGION
                                + ":" + account + ":bucket/tables").namespace("tenant_b").tableName("forged")
                                .compressionType("ZSTD").partitionSpec(p -> p.partitionFields(f -> f
                                        .transform("TIME_HOUR").sourceName(Events.PARTITION_FIELD))))));
        long deadline = System.currentTimeMillis() + 120_000;
        while (tenantB.listChannels(r -> { }).channelSummaries().stream()
                .noneMatch(c -> "ACTIVE".equals(c.channelStatusAsString()))) {
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException(FORGED_CHANNEL + " not ACTIVE in 120 s; see " + aio.log());
            }
            Thread.sleep(500);
        }
    }

    /** A few records on each channel, committed before the measured phases: a first commit opens its table. */
    private static void prime(AllInOne aio, FakeKinesis kinesis) throws Exception {
        long from = Files.size(aio.log());
        for (int i = 0; i < 10; i++) {
            kinesis.append(STREAM, Events.event(8, i, 1));
            kinesis.append(FORGED_STREAM, forged(Events.event(9, i, 1)));
        }
        long deadline = System.currentTimeMillis() + 120_000;
        Map<String, Tally> tallies;
        do {
            Thread.sleep(1_000);
            tallies = tally(aio, from);
        } while ((tallies.getOrDefault(AppSetup.CHANNEL, Tally.NONE).rows < 10
                || tallies.getOrDefault(FORGED_CHANNEL, Tally.NONE).deadLetters < 10)
                && System.currentTimeMillis() < deadline);
        System.err.println("first commits: " + tallies);
    }

    /** A GSR record (header version 3, no compression) naming a new random schema version id. */
    private static byte[] forged(byte[] body) {
        UUID version = UUID.randomUUID();
        return ByteBuffer.allocate(18 + body.length).put((byte) 3).put((byte) 0)
                .putLong(version.getMostSignificantBits()).putLong(version.getLeastSignificantBits()).put(body).array();
    }

    /**
     * Each second, {@link #STEADY_RATE} valid records on bench-channel's stream and {@code forgedRate} records on
     * tenant-b's naming a new version id each, in tenths of a second; once the seconds are over, every bench-channel
     * record committed: its commits' freshness, and the dead letters committed of tenant-b's.
     */
    private static final class Records implements Flood {
        private final AllInOne aio;
        private final FakeKinesis kinesis;
        private final int forgedRate;
        private final long logFrom;
        /** The forged records' bodies: any body will do, the version id is what is forged. */
        private final byte[][] bodies = Events.generate(9, 100, 1);
        private long appended;
        private long forged;

        Records(AllInOne aio, FakeKinesis kinesis, int forgedRate) throws IOException {
            this.aio = aio;
            this.kinesis = kinesis;
            this.forgedRate = forgedRate;
            this.logFrom = Files.size(aio.log());
        }

        @Override
        public void second() throws Exception {
            long began = System.currentTimeMillis();
            for (int tenth = 1; tenth <= 10; tenth++) {
                for (int i = 0; i < STEADY_RATE / 10; i++) {
                    kinesis.append(STREAM, Events.event(7, appended++, 1)); // one hour: a file per commit
                }
                for (int i = 0; i < forgedRate / 10; i++) {
                    kinesis.append(FORGED_STREAM, forged(bodies[(int) (forged++ % bodies.length)]));
                }
                Thread.sleep(Math.max(0, began + tenth * 100L - System.currentTimeMillis()));
            }
        }

        @Override
        public void finish(Result r) throws Exception {
            long deadline = System.currentTimeMillis() + (FRESHNESS + 60) * 1000L;
            Map<String, Tally> tallies;
            do {
                Thread.sleep(1_000);
                tallies = tally(aio, logFrom);
            } while ((tallies.getOrDefault(AppSetup.CHANNEL, Tally.NONE).rows < appended
                    || tallies.getOrDefault(FORGED_CHANNEL, Tally.NONE).deadLetters < forged)
                    && System.currentTimeMillis() < deadline);
            Tally steady = tallies.getOrDefault(AppSetup.CHANNEL, Tally.NONE);
            List<Long> freshness = steady.freshnessMillis.stream().sorted().toList();
            r.put("connections_per_s", 0).put("steady_per_s", STEADY_RATE).put("forged_per_s", forgedRate)
                    .put("appended", appended).put("committed", steady.rows).put("commits", freshness.size())
                    .put("freshness_s", FRESHNESS)
                    .put("freshness_p50_s", seconds(freshness, 50)).put("freshness_p99_s", seconds(freshness, 99))
                    .put("freshness_max_s", seconds(freshness, 100))
                    .put("forged_appended", forged)
                    .put("dead_letters", tallies.getOrDefault(FORGED_CHANNEL, Tally.NONE).deadLetters);
        }
    }

    /** What one channel's commits past a point of the log hold: rows, dead letters, each commit's freshness. */
    private record Tally(long rows, long deadLetters, List<Long> freshnessMillis) {
        static final Tally NONE = new Tally(0, 0, List.of());
    }

    /** The commit log past {@code from}, by channel. */
    private static Map<String, Tally> tally(AllInOne aio, long from) throws IOException {
        byte[] log = Files.readAllBytes(aio.log());
        Map<String, Tally> byChannel = new TreeMap<>();
        for (Matcher m = COMMITTED.matcher(new String(log, (int) from, log.length - (int) from,
                StandardCharsets.UTF_8)); m.find(); ) {
            Tally t = byChannel.getOrDefault(m.group(3), Tally.NONE);
            List<Long> freshness = new ArrayList<>(t.freshnessMillis());
            freshness.add(Long.parseLong(m.group(4)));
            byChannel.put(m.group(3), new Tally(t.rows() + Long.parseLong(m.group(1)),
                    t.deadLetters() + Long.parseLong(m.group(2)), freshness));
        }
        return byChannel;
    }

    /** A percentile of milliseconds, in seconds; null of none. */
    private static Double seconds(List<Long> sortedMillis, int p) {
        return sortedMillis.isEmpty() ? null : percentile(sortedMillis, p) / 1000.0;
    }

    private static long percentile(List<Long> sorted, int p) {
        return sorted.isEmpty() ? -1 : sorted.get(Math.min(sorted.size() - 1, sorted.size() * p / 100));
    }
}
