package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.schema.JsonSchemaMapper;
import io.streamtables.watermarks.Checkpoint;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.DataFormat;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.AccessDeniedException;
import software.amazon.awssdk.services.kinesis.model.CreateChannelRequest;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;

/**
 * Two tenants on one all-in-one, one catalog and one S3 store between them: the operator's account delivers a JSON
 * channel (A) while a second account (B, with a key of its own) tries each wall of the service against it, and a
 * caller that knows only A's key id tries the API. Each attempt is refused or bounded, and A's records are all in its
 * table, exactly once, each wave within a bound, while it happens. Kinesis-local serves one account, so B's stream
 * ARN carries the operator's: the operator allows other accounts' destinations here, which the walls that must hold
 * whatever it allows (the role) show too.
 */
class TenantWallsIT {

    static final String TENANT = "222222222222";
    static final String TENANT_KEY = "TENANTBKEY";
    static final String TENANT_SECRET = "tenant-b-secret";
    /** A wave of A's records must be in its table within this, whatever B does meanwhile (freshness 2 s). */
    static final int WAVE_SECONDS = 45;
    static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
            .withZone(ZoneOffset.UTC);

    @Test
    void anotherTenantIsRefusedOrBoundedWhileTheFirstDeliversEverythingOnTime() throws Exception {
        try (DeliveryFixture a = new DeliveryFixture("walls", DeliveryFixture.CatalogKind.SQLITE, 2)) {
            String streamB = "walls-b-" + Long.toString(System.nanoTime(), 36);
            String dlqB = "dlq-" + streamB;
            a.kinesis.createStream(r -> r.streamName(streamB).shardCount(1));
            a.s3.createBucket(r -> r.bucket(dlqB));
            a.appConfig.put("delivery.auth.principals.tenant-b.access-key-id", TENANT_KEY);
            a.appConfig.put("delivery.auth.principals.tenant-b.secret-access-key", TENANT_SECRET);
            a.appConfig.put("delivery.auth.principals.tenant-b.account-id", TENANT);
            a.appConfig.put("delivery.accounts.\"" + TENANT + "\".dlq-buckets", dlqB);
            a.appConfig.put("delivery.auth.cross-account-destinations", "true");
            a.appConfig.put("delivery.quotas.registries-per-account", "3");

            try (AllInOneProcess app = new AllInOneProcess(a.workDir, a.appConfig).start();
                    KinesisClient asB = kinesis(app, TENANT_KEY, TENANT_SECRET);
                    KinesisClient asA = kinesis(app, Peers.KEY, Peers.SECRET);
                    GlueClient glueB = glue(app)) {
                a.awaitActive(app);
                List<Long> waves = new ArrayList<>();
                waves.add(wave(a, app, 1));

                // B's own channel: GSR_JSON records of its own schema, into its own table of the shared catalog
                glueB.createRegistry(r -> r.registryName("b-registry"));
                String schemaB = glueB.createSchema(r -> r.registryId(id -> id.registryName("b-registry"))
                        .schemaName("b-events").dataFormat(DataFormat.JSON).compatibility("NONE")
                        .schemaDefinition(Events.SCHEMA)).schemaArn();
                String channelB = asB.createChannel(channel("b-gsr", streamB, schemaB, dlqB, "b_ns", "b_events"))
                        .channelDescription().channelARN();
                awaitStatus(asB, channelB, "ACTIVE");

                // a flood of new random version ids on B's stream while A delivers: it costs B's channel only
                AtomicBoolean flooding = new AtomicBoolean(true);
                Thread forged = new Thread(() -> forgeVersions(a, streamB, flooding));
                forged.start();
                try {
                    waves.add(wave(a, app, 2));

                    // 1. every spelling of / goes through the gate: a keyless 2 MB body is refused from its head
                    for (String path : List.of("/.", "/%2e", "/x/..")) {
                        assertEquals("403 MissingAuthenticationTokenException",
                                answer(app, "POST " + path, null, 2_000_000, 3_000), path);
                    }
                    // 2. a caller that knows only A's key id: heads alone hold nothing, a key of nobody is a wrong
                    //    secret, a target left unsigned is refused; A's requests are answered throughout
                    List<Socket> heads = new ArrayList<>();
                    try {
                        for (int i = 0; i < 100; i++) {
                            heads.add(open(app, head(app, "POST /", Peers.KEY, 2_000_000, true)));
                        }
                        for (int i = 0; i < 20; i++) {
                            asA.listChannels(r -> { });
                        }
                    } finally {
                        for (Socket s : heads) {
                            s.close();
                        }
                    }
                    assertEquals("400 InvalidSignatureException", answer(app, "POST /", "AKIANOBODY", 2, 3_000),
                            "a key of nobody is answered as a wrong secret");
                    try (Socket s = open(app, head(app, "POST /", Peers.KEY, 2_000_000, false))) {
                        assertEquals("400 IncompleteSignatureException", answer(s), "an unsigned target");
                    }

                    // 3. the status console (every account's channels) answers the operators only: a page of
                    //    another name that resolves to this machine (DNS rebinding) gets nothing
                    int management = URI.create(app.managementUrl()).getPort();
                    try (Socket s = new Socket("127.0.0.1", management)) {
                        s.setSoTimeout(10_000);
                        s.getOutputStream().write(("GET /console/status.json HTTP/1.1\r\nHost: tenant-b.example:"
                                + management + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                        assertEquals("421", line(s.getInputStream()).split(" ")[1], "a rebound name");
                    }
                    assertTrue(app.management("/console/status.json").contains(a.channelArn()), "the operators'");

                    // 4. the role is always the caller's own, whatever the operator allows
                    AccessDeniedException role = assertThrows(AccessDeniedException.class, () -> asB.createChannel(
                            channel("b-role", streamB, schemaB, dlqB, "b_ns", "b_role").andThen(r -> r
                                    .serviceExecutionRoleARN("arn:aws:iam::" + Peers.ACCOUNT + ":role/delivery"))));
                    assertTrue(role.awsErrorDetails().errorMessage().contains("ServiceExecutionRoleARN"));

                    // 5. a table of the shared catalog that no channel created (the operator's, say) is not B's to
                    //    adopt, mark and evolve, nor to learn the columns of
                    TableIdentifier unowned = TableIdentifier.of(a.table.namespace(), "operators_own");
                    a.catalog().createTable(unowned, JsonSchemaMapper.toIceberg(new ObjectMapper()
                            .readTree(Events.SCHEMA)));
                    String adopt = asB.createChannel(channel("b-adopt", streamB, schemaB, dlqB,
                            unowned.namespace().level(0), unowned.name()).andThen(r -> r.tags(Map.of(
                                    "delivery:existing-table", "ACCEPT")))).channelDescription().channelARN();
                    String reason = awaitStatus(asB, adopt, "FAILED");
                    assertTrue(reason.contains("delivery.owner-account") && !reason.contains("column")
                            && !reason.contains("event_time"), reason);
                    Table operators = a.catalog().loadTable(unowned);
                    assertNull(operators.properties().get(Checkpoint.CHANNEL_ARN_PROPERTY), "not marked B's");
                    assertEquals(1, operators.schemas().size(), "not evolved");

                    // 7. dead letters only where the operator allows B: not A's DLQ bucket, not the warehouse
                    for (String bucket : List.of(a.dlqBucket, a.warehouseBucket)) {
                        AccessDeniedException dlq = assertThrows(AccessDeniedException.class, () -> asB.createChannel(
                                channel("b-dlq", streamB, schemaB, bucket, "b_ns", "b_dlq")));
                        assertTrue(dlq.awsErrorDetails().errorMessage().contains("delivery.accounts"), bucket);
                    }

                    // 8. a quota holds under concurrency: 10 CreateRegistry at once for B's last 2 places
                    java.util.concurrent.ExecutorService creators = java.util.concurrent.Executors.newFixedThreadPool(10);
                    try {
                        List<java.util.concurrent.Future<?>> creates = new ArrayList<>();
                        for (int i = 0; i < 10; i++) {
                            String name = "b-racing-" + i;
                            creates.add(creators.submit(() -> {
                                try {
                                    glueB.createRegistry(r -> r.registryName(name));
                                } catch (software.amazon.awssdk.services.glue.model
                                        .ResourceNumberLimitExceededException refused) {
                                    // past the quota
                                }
                            }));
                        }
                        for (var create : creates) {
                            create.get();
                        }
                    } finally {
                        creators.shutdownNow();
                    }
                    assertEquals(3, glueB.listRegistries(r -> r.maxResults(100)).registries().size(),
                            "B's registries under a quota of 3");

                    waves.add(wave(a, app, 3));
                } finally {
                    flooding.set(false);
                    forged.join();
                }
                waves.add(wave(a, app, 4));
                int forgedDeadLetters = awaitDeadLetters(a, dlqB);
                DeliveryFixture.Summary summary = a.verify();
                System.out.printf("tenant walls: A %s, its waves delivered in %s ms; B's forged versions: %d dead "
                        + "letter objects in its own DLQ%n", summary, waves, forgedDeadLetters);
                assertTrue(waves.stream().allMatch(ms -> ms < WAVE_SECONDS * 1_000L), "waves " + waves);
                assertTrue(app.isAlive());
            }
        }
    }

    /** A wave of A's records, produced and awaited in its table: how long that took. */
    private static long wave(DeliveryFixture a, AllInOneProcess app, int n) throws Exception {
        long began = System.nanoTime();
        a.produce(new Events(90 + n, n * 100_000L).next(300, 30));
        a.awaitDelivered(WAVE_SECONDS, app);
        return (System.nanoTime() - began) / 1_000_000;
    }

    /** The dead-letter objects in B's own DLQ bucket, once there are some: its forged records end there. */
    private static int awaitDeadLetters(DeliveryFixture a, String bucket) throws InterruptedException {
        for (long deadline = System.nanoTime() + 60_000_000_000L; System.nanoTime() < deadline; Thread.sleep(500)) {
            int objects = a.s3.listObjectsV2(r -> r.bucket(bucket)).keyCount();
            if (objects > 0) {
                return objects;
            }
        }
        throw new AssertionError("no dead letter of B's forged versions in its DLQ bucket " + bucket);
    }

    /** GSR_JSON records on B's stream, each naming a new random version id, until told to stop. */
    private static void forgeVersions(DeliveryFixture a, String stream, AtomicBoolean flooding) {
        byte[] body = "{\"id\": 1, \"event_time\": \"2026-01-01T00:00:00Z\"}".getBytes(StandardCharsets.UTF_8);
        while (flooding.get()) {
            List<PutRecordsRequestEntry> entries = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                UUID version = UUID.randomUUID();
                byte[] record = ByteBuffer.allocate(18 + body.length).put((byte) 3).put((byte) 0)
                        .putLong(version.getMostSignificantBits()).putLong(version.getLeastSignificantBits())
                        .put(body).array();
                entries.add(PutRecordsRequestEntry.builder().data(SdkBytes.fromByteArray(record))
                        .partitionKey("k" + i).build());
            }
            a.kinesis.putRecords(r -> r.streamName(stream).records(entries));
        }
    }

    /** B's channel on its stream, into a table of the shared catalog's (roles off: the role's account only). */
    static Consumer<CreateChannelRequest.Builder> channel(String name, String stream, String schemaArn, String dlq,
            String namespace, String table) {
        return r -> r.channelName(name).serviceExecutionRoleARN("arn:aws:iam::" + TENANT + ":role/delivery")
                .streamConfigurationList(s -> s.streamARN("arn:aws:kinesis:" + Peers.REGION + ":" + Peers.ACCOUNT
                        + ":stream/" + stream).recordConfiguration(rc -> rc.recordFormatType("GSR_JSON")
                                .gsrSchemaARN(schemaArn)))
                .s3TablesDestinationConfiguration(d -> d.dataFreshnessInSeconds(2)
                        .deadLetterQueueS3Configuration(q -> q.bucketARN("arn:aws:s3:::" + dlq)
                                .expectedBucketOwner(TENANT).errorOutputPrefix("errors/"))
                        .s3TablesConfigurationList(t -> t.tableBucketARN("arn:aws:s3tables:" + Peers.REGION + ":"
                                + TENANT + ":bucket/tables").namespace(namespace).tableName(table)
                                .compressionType("ZSTD").partitionSpec(p -> p.partitionFields(f -> f
                                        .transform("TIME_HOUR").sourceName("event_time")))));
    }

    static String awaitStatus(KinesisClient api, String arn, String wanted) throws InterruptedException {
        String status = null;
        for (long deadline = System.nanoTime() + 60_000_000_000L; System.nanoTime() < deadline; Thread.sleep(250)) {
            var d = api.describeChannel(r -> r.channelARN(arn)).channelDescription();
            status = d.channelStatusAsString();
            if (wanted.equals(status)) {
                return String.valueOf(d.channelStatusReason());
            }
            if ("FAILED".equals(status)) {
                throw new AssertionError(arn + " FAILED: " + d.channelStatusReason());
            }
        }
        throw new AssertionError(arn + " not " + wanted + " in 60 s but " + status);
    }

    static KinesisClient kinesis(AllInOneProcess app, String key, String secret) {
        return KinesisClient.builder().endpointOverride(URI.create(app.url())).region(Region.of(Peers.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret)))
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
                .httpClientBuilder(UrlConnectionHttpClient.builder()).build();
    }

    static GlueClient glue(AllInOneProcess app) {
        return GlueClient.builder().endpointOverride(URI.create(app.url())).region(Region.of(Peers.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(TENANT_KEY,
                        TENANT_SECRET))).httpClientBuilder(UrlConnectionHttpClient.builder()).build();
    }

    /**
     * A ListChannels head declaring {@code length} bytes, signed (well-formed, wrong) with {@code key} if any, the
     * target signed or not.
     */
    static String head(AllInOneProcess app, String requestLine, String key, int length, boolean signTarget) {
        String now = AMZ_DATE.format(Instant.now());
        String authorization = key == null ? "" : "Authorization: AWS4-HMAC-SHA256 Credential=" + key + "/"
                + now.substring(0, 8) + "/" + Peers.REGION + "/kinesis/aws4_request, SignedHeaders=host;x-amz-date"
                + (signTarget ? ";x-amz-target" : "") + ", Signature=" + "0".repeat(64) + "\r\n";
        return requestLine + " HTTP/1.1\r\nHost: 127.0.0.1:" + URI.create(app.url()).getPort()
                + "\r\nContent-Type: application/x-amz-json-1.1\r\nX-Amz-Target: Kinesis_20131202.ListChannels\r\n"
                + "X-Amz-Date: " + now + "\r\n" + authorization + "Content-Length: " + length + "\r\n\r\n";
    }

    /** The status and AWS error type of the answer to a head (and, for a body of 2 bytes, the body {@code {}}). */
    static String answer(AllInOneProcess app, String requestLine, String key, int length, int timeoutMillis)
            throws IOException {
        String request = head(app, requestLine, key, length, true) + (length == 2 ? "{}" : "");
        try (Socket s = open(app, request)) {
            s.setSoTimeout(timeoutMillis);
            return answer(s);
        }
    }

    /** "status error-type" of the answer on the socket. */
    static String answer(Socket s) throws IOException {
        String status = line(s.getInputStream()).split(" ")[1];
        String type = "";
        for (String header = line(s.getInputStream()); !header.isEmpty(); header = line(s.getInputStream())) {
            if (header.toLowerCase(java.util.Locale.ROOT).startsWith("x-amzn-errortype:")) {
                type = header.substring(header.indexOf(':') + 1).strip();
            }
        }
        return status + " " + type;
    }

    static Socket open(AllInOneProcess app, String request) throws IOException {
        Socket s = new Socket("127.0.0.1", URI.create(app.url()).getPort());
        s.setSoTimeout(10_000);
        s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
        return s;
    }

    static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != -1 && c != '\n'; c = in.read()) {
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }
}
