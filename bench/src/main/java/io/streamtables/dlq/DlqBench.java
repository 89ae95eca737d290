package io.streamtables.dlq;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.bench.Measure;
import io.streamtables.bench.Result;
import io.streamtables.bench.Setup;
import io.streamtables.bus.DlqAck;
import io.streamtables.bus.DlqBatch;
import io.streamtables.bus.ErrorCode;
import io.streamtables.bus.Reject;
import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelRegistry;
import io.streamtables.commit.CommitBench;
import io.streamtables.config.DeliveryConfig;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;

/**
 * Stage "DLQ write alone": {@link DlqService#store} on batches of rejects, once with an S3 client that drops
 * the bytes (the stage's own cost: JSON Lines + request building) and once against S3Proxy (a real PUT over
 * HTTP, SSE header and expected-owner header included).
 */
public final class DlqBench {

    private DlqBench() {
    }

    public static List<Result> run(Path dir, int batches, int perBatch, String s3Endpoint) throws Exception {
        Files.createDirectories(dir);
        Path channels = dir.resolve("channels.json");
        ObjectMapper json = new ObjectMapper();
        // the stage counts what it stores; a plain registry stands in for the service's Prometheus one
        io.micrometer.core.instrument.MeterRegistry metrics = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        Files.writeString(channels, Setup.channelJson("bench-dlq", "bench-events", "bench", "dlq_events", 1, "dlq-bench"));
        DeliveryConfig config = new DeliveryConfigWithDb(Setup.config(channels.toString()),
                "jdbc:sqlite:" + dir.resolve("d.db"));
        ChannelRegistry registry = Setup.wire(ChannelRegistry.class, config, json);
        Channel channel = registry.all().iterator().next().channel();
        List<DlqBatch> work = batches(channel, batches, perBatch);

        List<Result> out = new ArrayList<>();
        AtomicLong bytes = new AtomicLong();
        S3Client drop = new S3Client() {
            @Override
            public PutObjectResponse putObject(PutObjectRequest request, RequestBody body) {
                bytes.addAndGet(body.optionalContentLength().orElse(0L));
                return PutObjectResponse.builder().build();
            }

            @Override
            public String serviceName() {
                return "s3";
            }

            @Override
            public void close() {
            }
        };
        out.add(measure("stage_dlq_no_network", Setup.wire(DlqService.class, drop, registry, json, metrics), work.subList(0, Math.min(20, work.size())), work, bytes));
        if (s3Endpoint != null) {
            try (S3Client s3 = S3Client.builder()
                    .httpClientBuilder(UrlConnectionHttpClient.builder())
                    .endpointOverride(URI.create(s3Endpoint)).forcePathStyle(true).region(Region.of(Setup.REGION))
                    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                    .build()) {
                s3.createBucket(b -> b.bucket(channel.dlqBucket()));
                AtomicLong none = new AtomicLong();
                out.add(measure("stage_dlq_s3proxy", Setup.wire(DlqService.class, s3, registry, json, metrics),
                        work.subList(0, Math.min(20, work.size())), work, none));
            }
        }
        return out;
    }

    private static Result measure(String name, DlqService service, List<DlqBatch> warm, List<DlqBatch> work,
            AtomicLong bytes) {
        for (DlqBatch b : warm) {
            check(service.store(b));
        }
        long before = bytes.get();
        Measure m = Measure.start();
        for (DlqBatch b : work) {
            check(service.store(b));
        }
        m.stop();
        long rejects = work.stream().mapToLong(b -> b.rejects().size()).sum();
        Result r = new Result(name).put("batches", work.size()).put("rejects", rejects)
                .put("seconds", m.seconds()).put("rejects_per_s", rejects / m.seconds())
                .put("ms_per_batch", m.seconds() * 1000 / work.size()).put("cpu_s", m.cpuSeconds())
                .put("cpu_us_per_reject", m.cpuSeconds() * 1e6 / rejects);
        if (bytes.get() > before) {
            r.put("dlq_mb", (bytes.get() - before) / 1e6).put("dlq_mb_per_s", (bytes.get() - before) / 1e6 / m.seconds());
        }
        return r;
    }

    private static void check(DlqAck ack) {
        if (!ack.stored()) {
            throw new IllegalStateException("DLQ store failed: " + ack.error());
        }
    }

    /** Rejects of every error kind, with the identifiers Kinesis gives (no payload, by design). */
    static List<DlqBatch> batches(Channel channel, int batches, int perBatch) {
        ErrorCode[] codes = {ErrorCode.SCHEMA_VALIDATION_FAILED, ErrorCode.TYPE_CONVERSION_FAILED,
            ErrorCode.DESERIALIZATION_ERROR, ErrorCode.MISSING_PARTITION_VALUE};
        List<DlqBatch> out = new ArrayList<>();
        long t = 1_790_000_000_000L;
        for (int b = 0; b < batches; b++) {
            List<Reject> rejects = new ArrayList<>(perBatch);
            for (int i = 0; i < perBatch; i++) {
                ErrorCode code = codes[i % codes.length];
                rejects.add(new Reject(channel.streamArn().toString(), CommitBench.shardId(b % 4),
                        CommitBench.sequence(b % 4, (long) b * perBatch + i), t + i, code,
                        "/price fails rule 'minimum'", code == ErrorCode.DESERIALIZATION_ERROR ? null : "/price"));
            }
            out.add(new DlqBatch(channel.arn(), "errors/2026/11/01/00/bench-dlq-" + CommitBench.shardId(b % 4) + "-"
                    + rejects.get(0).sequenceNumber() + ".jsonl", rejects));
        }
        return out;
    }

    /** The same settings with a file database for the channel state. */
    private record DeliveryConfigWithDb(DeliveryConfig d, String url) implements DeliveryConfig {
        public String region() { return d.region(); }
        public String accountId() { return d.accountId(); }
        public int minDataFreshnessSeconds() { return d.minDataFreshnessSeconds(); }
        public java.util.Optional<String> channelsFile() { return d.channelsFile(); }
        public String schemasDir() { return d.schemasDir(); }
        public java.util.Map<String, String> catalog() { return d.catalog(); }
        public java.util.Map<String, java.util.Map<String, String>> tableBuckets() { return d.tableBuckets(); }
        public String databaseUrl() { return url; }
        public java.util.Optional<String> databaseUser() { return java.util.Optional.empty(); }
        public java.util.Optional<String> databasePassword() { return java.util.Optional.empty(); }
    }
}
