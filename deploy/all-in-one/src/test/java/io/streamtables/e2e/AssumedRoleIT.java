package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.roles.StsStub;
import io.streamtables.stubs.AwsStub;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * With {@code delivery.auth.assume-role}, every AWS call of a channel (its Kinesis reads, its DLQ
 * writes, its table's FileIO) signs as a session of its ServiceExecutionRoleARN, granted by STS ({@link StsStub},
 * on the Query protocol the official StsClient speaks); a role STS refuses sends the channel FAILED with a reason.
 *
 * <p>S3Proxy knows one key pair, so the stub's sessions carry that pair: what tells a session's request from the
 * service's own is its {@code X-Amz-Security-Token}, one of the tokens the stub granted to the channel's session,
 * as recorded by proxies in front of S3Proxy and kinesis-local. Without the role no request carries a token.
 */
class AssumedRoleIT {

    static final String ROLE = "arn:aws:iam::" + Peers.ACCOUNT + ":role/delivery-writer";
    static final String UNTRUSTING = "arn:aws:iam::" + Peers.ACCOUNT + ":role/not-trusting-the-service";
    /** The service's own call to Kinesis, its readiness probe: every other is a channel's. */
    static final String PROBE = "Kinesis_20131202.ListStreams";

    @Test
    void everyCallOfAChannelSignsAsItsRole() throws Exception {
        try (StsStub sts = new StsStub(Peers.KEY, Peers.SECRET);
                DeliveryFixture fixture = new DeliveryFixture("role", DeliveryFixture.CatalogKind.SQLITE, 1);
                DeliveryFixture refused = new DeliveryFixture("role-refused", DeliveryFixture.CatalogKind.SQLITE, 1);
                RecordingS3Proxy s3 = new RecordingS3Proxy(Peers.S3);
                RecordingS3Proxy kinesis = new RecordingS3Proxy(Peers.KINESIS);
                AwsStub cloudWatch = cloudWatch()) {
            fixture.role(ROLE);
            fixture.routeS3Through(s3.endpoint());
            fixture.appConfig.put("delivery.kinesis.endpoint-override", kinesis.endpoint());
            fixture.appConfig.put("delivery.auth.assume-role", "true");
            fixture.appConfig.put("delivery.auth.external-id", "ext-17");
            // STS is reached the SDK's standard way: its endpoint and the service's own keys from the environment
            fixture.appConfig.put("aws.endpointUrlSts", sts.endpoint());
            fixture.appConfig.put("aws.accessKeyId", Peers.KEY);
            fixture.appConfig.put("aws.secretAccessKey", Peers.SECRET);
            for (String half : new String[] {"metrics", "logs"}) { // CloudWatch for users on AWS
                fixture.appConfig.put("delivery.cloudwatch." + half + ".enabled", "true");
                fixture.appConfig.put("delivery.cloudwatch." + half + ".interval", "1s");
                fixture.appConfig.put("delivery.cloudwatch." + half + ".endpoint-override", cloudWatch.endpoint());
            }
            sts.refuse(UNTRUSTING);
            try (AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start()) {
                fixture.awaitActive(app);
                fixture.produce(new Events(17, 1).next(1_000, 25));
                fixture.awaitDelivered(120, app);
                awaitShipped(cloudWatch, fixture);
                DeliveryFixture.Summary summary = fixture.verify();
                assertTrue(summary.rows() > 0 && summary.deadLetters() > 0, summary.toString());

                refused.role(UNTRUSTING);
                refused.createChannel(app, 1);
                String reason = refused.awaitStatus(app, "FAILED");
                assertTrue(reason.startsWith("ServiceExecutionRoleARN " + UNTRUSTING
                        + " cannot be assumed (AccessDenied"), reason);
            }

            // the channel's own session (Kinesis, DLQ) and the session of its role's table FileIO
            String session = "delivery-" + fixture.streamName;
            Set<String> sessions = Set.of(session, "delivery-tables");
            List<StsStub.Call> calls = sts.calls().stream().filter(c -> sessions.contains(c.sessionName())).toList();
            assertEquals(sessions, calls.stream().map(StsStub.Call::sessionName).collect(Collectors.toSet()),
                    sts.calls().toString());
            calls.forEach(c -> {
                assertEquals(ROLE, c.roleArn());
                assertEquals("ext-17-" + Peers.ACCOUNT, c.parameters().get("ExternalId")); // one per account
                assertEquals(Peers.KEY, c.signedBy(), "AssumeRole is signed by the service's own key");
            });
            Set<String> channelTokens = sts.tokens(session);
            assertShippedAsTheRole(cloudWatch, fixture, channelTokens);
            Set<String> tableTokens = sts.tokens("delivery-tables");

            List<RecordingS3Proxy.Request> reads = kinesis.requests().stream()
                    .filter(r -> !PROBE.equals(r.header("x-amz-target"))).toList();
            assertTrue(reads.stream().anyMatch(r -> r.header("x-amz-target").endsWith("GetRecords")), "no GetRecords");
            reads.forEach(r -> assertSignedBy(channelTokens, r));
            List<RecordingS3Proxy.Request> dlq = s3.requests().stream()
                    .filter(r -> r.bucket().equals(fixture.dlqBucket)).toList();
            dlq.forEach(r -> assertSignedBy(channelTokens, r));
            List<RecordingS3Proxy.Request> table = s3.requests().stream()
                    .filter(r -> r.bucket().equals(fixture.warehouseBucket)).toList();
            table.forEach(r -> assertSignedBy(tableTokens, r));
            Map<String, List<RecordingS3Proxy.Request>> written = EncryptionIT.writes(s3, fixture); // every kind
            System.out.printf("assumed role: %d AssumeRole calls; signed as the role: %d Kinesis, %d DLQ and %d table "
                    + "requests; writes %s%n", calls.size(), reads.size(), dlq.size(), table.size(),
                    written.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().size())));
        }
    }

    /** CloudWatch's PutMetricData (CBOR) and CloudWatch Logs (JSON 1.1), creating log groups and streams. */
    static AwsStub cloudWatch() throws java.io.IOException {
        return new AwsStub().on("PutMetricData", r -> AwsStub.object())
                .on("Logs_20140328.CreateLogGroup", r -> AwsStub.object())
                .on("Logs_20140328.CreateLogStream", r -> AwsStub.object())
                .on("Logs_20140328.PutLogEvents", r -> AwsStub.object());
    }

    /** The delivery log's COMMITTED line and the channel's DataFreshness have reached CloudWatch (30 s at most). */
    private static void awaitShipped(AwsStub cloudWatch, DeliveryFixture fixture) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 30_000;
        while (System.currentTimeMillis() < deadline && (lines(cloudWatch, fixture).stream()
                .noneMatch(l -> l.contains("\"event\":\"COMMITTED\"")) || freshness(cloudWatch, fixture).isEmpty())) {
            Thread.sleep(200);
        }
    }

    private static void assertShippedAsTheRole(AwsStub cloudWatch, DeliveryFixture fixture, Set<String> tokens) {
        List<String> lines = lines(cloudWatch, fixture);
        assertTrue(lines.stream().anyMatch(l -> l.contains("\"event\":\"ACTIVE\"")), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.contains("\"event\":\"COMMITTED\"")), lines.toString());
        cloudWatch.calls().stream().filter(c -> c.operation().startsWith("Logs_")).forEach(c -> assertTrue(
                tokens.contains(c.sessionToken()), c.operation() + " not signed as the channel's role"));
        assertFalse(freshness(cloudWatch, fixture).isEmpty(), "no DataFreshness of the channel");
        freshness(cloudWatch, fixture).forEach(v -> assertTrue(v >= 0 && v < 300, "DataFreshness " + v));
        System.out.printf("cloudwatch: %d delivery log lines shipped to %s, %d DataFreshness points%n", lines.size(),
                fixture.logGroup(), freshness(cloudWatch, fixture).size());
    }

    /** The delivery log lines PutLogEvents received for the channel's log group and stream. */
    private static List<String> lines(AwsStub cloudWatch, DeliveryFixture fixture) {
        return cloudWatch.calls("Logs_20140328.PutLogEvents").stream()
                .filter(c -> c.request().path("logGroupName").asText().equals(fixture.logGroup())
                        && c.request().path("logStreamName").asText().equals("DestinationDelivery"))
                .flatMap(c -> java.util.stream.StreamSupport.stream(c.request().path("logEvents").spliterator(), false))
                .map(e -> e.path("message").asText()).toList();
    }

    /** The values of DataFreshness PutMetricData received for the channel. */
    private static List<Double> freshness(AwsStub cloudWatch, DeliveryFixture fixture) {
        return cloudWatch.calls("PutMetricData").stream()
                .flatMap(c -> java.util.stream.StreamSupport.stream(c.request().path("MetricData").spliterator(), false))
                .filter(d -> d.path("MetricName").asText().equals("DataFreshness")
                        && d.path("Dimensions").get(0).path("Value").asText().equals(fixture.channelArn()))
                .map(d -> d.path("Value").asDouble()).toList();
    }

    private static void assertSignedBy(Set<String> tokens, RecordingS3Proxy.Request r) {
        assertTrue(tokens.contains(r.header("x-amz-security-token")), r.method() + " " + r.target() + " "
                + r.header("x-amz-target") + " signed without a session of the channel's role: " + r.headers());
    }

    /**
     * A role revoked while the channel delivers: once its session is stale the channel's calls fail with STS's
     * refusal, logged as the reason; the channel stays ACTIVE and retries, and when the role is trusted again
     * everything sent meanwhile is delivered, exactly once.
     */
    @Test
    void aRevokedRoleIsRetriedWithAReasonAndNothingIsLost() throws Exception {
        try (StsStub sts = new StsStub(Peers.KEY, Peers.SECRET);
                DeliveryFixture fixture = new DeliveryFixture("role-revoked", DeliveryFixture.CatalogKind.SQLITE, 1)) {
            fixture.role(ROLE);
            fixture.appConfig.put("delivery.auth.assume-role", "true");
            fixture.appConfig.put("aws.endpointUrlSts", sts.endpoint());
            fixture.appConfig.put("aws.accessKeyId", Peers.KEY);
            fixture.appConfig.put("aws.secretAccessKey", Peers.SECRET);
            // The SDK uses a session until its last minute (then it is stale) and asks for the next one from its
            // last five: a session of 75 s is stale 15 s after it is granted, and each use asks STS again.
            sts.lifetime(Duration.ofSeconds(75));
            try (AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start()) {
                fixture.awaitActive(app);
                Events events = new Events(18, 1);
                fixture.produce(events.next(500, 25));
                fixture.awaitDelivered(120, app);

                sts.refuse(ROLE);
                String session = "delivery-" + fixture.streamName;
                long refusedBy = System.nanoTime() + 30_000_000_000L;
                while (sts.calls().stream().noneMatch(c -> session.equals(c.sessionName()) && c.sessionToken() == null)
                        && System.nanoTime() < refusedBy) {
                    Thread.sleep(200);
                }
                Thread.sleep(20_000); // every session granted before the first refusal is stale now
                Map<String, String> before = fixture.committedWatermarks();
                fixture.produce(events.next(500, 25));
                String refusal = "not authorized to perform: sts:AssumeRole on resource: " + ROLE;
                long deadline = System.nanoTime() + 60_000_000_000L;
                while (!app.log().contains(refusal) && System.nanoTime() < deadline) {
                    Thread.sleep(500);
                }
                assertTrue(app.log().contains(refusal), "no reason in the log\n" + app.tail());
                assertEquals(before, fixture.committedWatermarks(), "delivered without the role");
                assertEquals("", fixture.awaitStatus(app, "ACTIVE"), "the channel stays ACTIVE");

                sts.trust(ROLE);
                fixture.awaitDelivered(180, app);
                DeliveryFixture.Summary summary = fixture.verify();
                assertTrue(summary.rows() > 0, summary.toString());
            }
        }
    }
}
