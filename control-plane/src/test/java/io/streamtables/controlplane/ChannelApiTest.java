package io.streamtables.controlplane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.streamtables.config.KinesisLocal;
import java.net.URI;
import java.net.URL;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ChannelDescription;
import software.amazon.awssdk.services.kinesis.model.ChannelStatus;
import software.amazon.awssdk.services.kinesis.model.ChannelSummary;
import software.amazon.awssdk.services.kinesis.model.CreateChannelRequest;
import software.amazon.awssdk.services.kinesis.model.InvalidArgumentException;
import software.amazon.awssdk.services.kinesis.model.LimitExceededException;
import software.amazon.awssdk.services.kinesis.model.RecordConfiguration;
import software.amazon.awssdk.services.kinesis.model.ResourceInUseException;
import software.amazon.awssdk.services.kinesis.model.ResourceNotFoundException;
import software.amazon.awssdk.services.kinesis.model.S3TablesCompressionType;
import software.amazon.awssdk.services.kinesis.model.S3TablesConfiguration;

/** Every channel operation through the official AWS SDK Kinesis client, in JSON and in CBOR (its default). */
@QuarkusTest
@io.quarkus.test.common.WithTestResource(value = KmsStubResource.class,
        scope = io.quarkus.test.common.TestResourceScope.GLOBAL)
public class ChannelApiTest {

    static final String ACCOUNT = "000000000000";
    public static final String SCHEMA_ARN = "arn:aws:glue:us-east-1:000000000000:schema/file-registry/orders";

    @TestHTTPResource("/")
    URL url;
    @jakarta.inject.Inject
    software.amazon.awssdk.services.s3.S3Client s3;
    @jakarta.inject.Inject
    io.streamtables.state.ChannelStore store;
    /** KMS: DescribeKey tells AWS managed keys from customer managed ones. */
    io.streamtables.stubs.AwsStub kms;

    /** The SDK reads aws.cborEnabled when a client is built. */
    public static KinesisClient client(URI endpoint, boolean cbor) {
        System.setProperty("aws.cborEnabled", Boolean.toString(cbor));
        try {
            return KinesisClient.builder().endpointOverride(endpoint).region(Region.US_EAST_1)
                    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                    .httpClientBuilder(UrlConnectionHttpClient.builder()).build();
        } finally {
            System.clearProperty("aws.cborEnabled");
        }
    }

    public static Consumer<CreateChannelRequest.Builder> channel(String name, String stream, String compression, int freshness) {
        return r -> r.channelName(name)
                .serviceExecutionRoleARN("arn:aws:iam::" + ACCOUNT + ":role/delivery")
                .streamConfigurationList(s -> s.streamARN("arn:aws:kinesis:us-east-1:" + ACCOUNT + ":stream/" + stream)
                        .recordConfiguration(rc -> rc.recordFormatType("JSON").gsrSchemaARN(SCHEMA_ARN)))
                .s3TablesDestinationConfiguration(d -> d.dataFreshnessInSeconds(freshness)
                        .deadLetterQueueS3Configuration(q -> q.bucketARN("arn:aws:s3:::dlq").expectedBucketOwner(ACCOUNT)
                                .errorOutputPrefix("errors/"))
                        .s3TablesConfigurationList(t -> t.tableBucketARN("arn:aws:s3tables:us-east-1:" + ACCOUNT + ":bucket/b")
                                .namespace("ns").tableName(name.replace('-', '_')).compressionType(compression)
                                .partitionSpec(p -> p.partitionFields(f -> f.transform("TIME_HOUR").sourceName("event_time")))))
                .loggingConfiguration(l -> l.cloudWatchLogs(c -> c.enabled(true).logGroupName("/aws/kinesis/" + name)
                        .logStreamName("DestinationDelivery")));
    }

    /** A new channel on the stream whose one table is the default one with {@code change} applied. */
    static Consumer<CreateChannelRequest.Builder> withTable(String stream, Consumer<S3TablesConfiguration.Builder> change) {
        return channel(unique("c"), stream, "ZSTD", 60).andThen(r -> r.s3TablesDestinationConfiguration(d -> d
                .dataFreshnessInSeconds(60).deadLetterQueueS3Configuration(q -> q.bucketARN("arn:aws:s3:::dlq")
                        .expectedBucketOwner(ACCOUNT))
                .s3TablesConfigurationList(t -> change.accept(t
                        .tableBucketARN("arn:aws:s3tables:us-east-1:" + ACCOUNT + ":bucket/b")
                        .namespace("ns").tableName("t").compressionType("ZSTD")
                        .partitionSpec(p -> p.partitionFields(f -> f.transform("TIME_HOUR").sourceName("event_time")))))));
    }

    /** A new channel on {@code streamArn} with the given record configuration. */
    static Consumer<CreateChannelRequest.Builder> withStream(String streamArn, Consumer<RecordConfiguration.Builder> record) {
        return channel(unique("c"), "unused", "ZSTD", 60).andThen(r -> r.streamConfigurationList(s -> s
                .streamARN(streamArn).recordConfiguration(record)));
    }

    /** A new channel on the stream with this DLQ bucket and prefix. */
    static Consumer<CreateChannelRequest.Builder> withDlq(String stream, String bucketArn, String prefix) {
        return channel(unique("c"), stream, "ZSTD", 60).andThen(r -> r.s3TablesDestinationConfiguration(d -> d
                .dataFreshnessInSeconds(60).deadLetterQueueS3Configuration(q -> q.bucketARN(bucketArn)
                        .expectedBucketOwner(ACCOUNT).errorOutputPrefix(prefix))
                .s3TablesConfigurationList(t -> t.tableBucketARN("arn:aws:s3tables:us-east-1:" + ACCOUNT + ":bucket/b")
                        .namespace("ns").tableName(unique("t").replace('-', '_')).compressionType("ZSTD")
                        .partitionSpec(p -> p.partitionFields(f -> f.transform("TIME_HOUR").sourceName("event_time"))))));
    }

    public static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @ParameterizedTest(name = "cbor={0}")
    @ValueSource(booleans = {false, true})
    void everyOperationAndField(boolean cbor) throws Exception {
        try (KinesisClient api = client(url.toURI(), cbor)) {
            String name = unique("orders");
            String stream = unique("stream");
            ChannelDescription created = api.createChannel(channel(name, stream, "ZSTD", 60)).channelDescription();
            String arn = "arn:aws:kinesis:us-east-1:" + ACCOUNT + ":channel/" + name;
            assertEquals(arn, created.channelARN());
            assertEquals(name, created.channelName());
            assertNotNull(created.channelId());
            assertNotNull(created.channelCreationTimestamp());
            assertTrue(List.of("CREATING", "ACTIVE", "FAILED").contains(created.channelStatusAsString()));

            ChannelDescription described = api.describeChannel(r -> r.channelARN(arn)).channelDescription();
            assertEquals("arn:aws:iam::" + ACCOUNT + ":role/delivery", described.serviceExecutionRoleARN());
            assertEquals(SCHEMA_ARN, described.streamConfigurationList().get(0).recordConfiguration().gsrSchemaARN());
            assertEquals(60, described.s3TablesDestinationConfiguration().dataFreshnessInSeconds());
            assertEquals("arn:aws:s3:::dlq", described.s3TablesDestinationConfiguration().deadLetterQueueS3Configuration().bucketARN());
            assertEquals(S3TablesCompressionType.ZSTD,
                    described.s3TablesDestinationConfiguration().s3TablesConfigurationList().get(0).compressionType());
            assertEquals("event_time", described.s3TablesDestinationConfiguration().s3TablesConfigurationList().get(0)
                    .partitionSpec().partitionFields().get(0).sourceName());
            assertEquals("/aws/kinesis/" + name, described.loggingConfiguration().cloudWatchLogs().logGroupName());
            assertEquals(created.channelCreationTimestamp().getEpochSecond(),
                    described.channelCreationTimestamp().getEpochSecond());

            List<ChannelSummary> listed = api.listChannels(r -> r.streamFilter(f -> f.streamARN(
                    "arn:aws:kinesis:us-east-1:" + ACCOUNT + ":stream/" + stream))).channelSummaries();
            assertEquals(1, listed.size());
            assertEquals(arn, listed.get(0).channelARN());

            ChannelDescription updated = api.updateChannel(r -> r.channelARN(arn)
                    .s3TablesDestinationConfiguration(d -> d.dataFreshnessInSeconds(120))).channelDescription();
            assertEquals(120, updated.s3TablesDestinationConfiguration().dataFreshnessInSeconds());
            assertEquals(120, api.describeChannel(r -> r.channelARN(arn)).channelDescription()
                    .s3TablesDestinationConfiguration().dataFreshnessInSeconds());

            api.deleteChannel(r -> r.channelARN(arn));
            // SPEC C4: DELETING until every stage has let the channel go, then gone
            assertEquals("DELETING", api.describeChannel(r -> r.channelARN(arn)).channelDescription()
                    .channelStatusAsString());
            assertRefused(ResourceInUseException.class, "being deleted", () -> api.updateChannel(r -> r
                    .channelARN(arn).s3TablesDestinationConfiguration(d -> d.dataFreshnessInSeconds(60))));
            api.deleteChannel(r -> r.channelARN(arn)); // again: still accepted
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (System.nanoTime() < deadline && api.listChannels(r -> { }).channelSummaries().stream()
                    .anyMatch(c -> c.channelARN().equals(arn))) {
                Thread.sleep(200);
            }
            assertThrows(ResourceNotFoundException.class, () -> api.describeChannel(r -> r.channelARN(arn)));
        }
    }

    @ParameterizedTest(name = "cbor={0}")
    @ValueSource(booleans = {false, true})
    void badRequestsAreRefusedWithTheFieldAndTheRule(boolean cbor) throws Exception {
        try (KinesisClient api = client(url.toURI(), cbor)) {
            String stream = unique("stream");
            assertRefused(InvalidArgumentException.class, "CompressionType",
                    () -> api.createChannel(channel(unique("c"), stream, "GZIP", 60)));
            assertRefused(InvalidArgumentException.class, "DataFreshnessInSeconds",
                    () -> api.createChannel(channel(unique("c"), stream, "ZSTD", 5000)));
            // the tags that choose a start position and accept an existing table take only their values
            assertRefused(InvalidArgumentException.class, "'delivery:start-position' must be ACTIVATION",
                    () -> api.createChannel(channel(unique("c"), stream, "ZSTD", 60)
                            .andThen(b -> b.tags(java.util.Map.of("delivery:start-position", "LATEST")))));
            assertRefused(InvalidArgumentException.class, "'delivery:existing-table' must be ACCEPT",
                    () -> api.createChannel(channel(unique("c"), stream, "ZSTD", 60)
                            .andThen(b -> b.tags(java.util.Map.of("delivery:existing-table", "yes")))));
            assertRefused(InvalidArgumentException.class, "cross-Region", () -> api.createChannel(withStream(
                    "arn:aws:kinesis:eu-west-1:" + ACCOUNT + ":stream/" + stream, rc -> rc.recordFormatType("JSON")
                            .gsrSchemaARN(SCHEMA_ARN))));
            assertRefused(InvalidArgumentException.class, "RecordFormatType", () -> api.createChannel(withStream(
                    "arn:aws:kinesis:us-east-1:" + ACCOUNT + ":stream/" + stream, rc -> rc.recordFormatType("STRING").gsrSchemaARN(SCHEMA_ARN))));
            assertRefused(InvalidArgumentException.class, "KeyId", () -> api.createChannel(
                    channel(unique("c"), stream, "ZSTD", 60).andThen(r -> r.encryptionConfiguration(
                            e -> e.encryptionType("KMS").keyId("alias/aws/kinesis")))));
            // the SDKs' ChannelEncryptionType is KMS only: SSE-S3 is an EncryptionConfiguration left out
            assertRefused(InvalidArgumentException.class, "omit EncryptionConfiguration for SSE-S3", () -> api
                    .createChannel(channel(unique("c"), stream, "ZSTD", 60).andThen(r -> r.encryptionConfiguration(
                            e -> e.encryptionType("NONE")))));
            assertRefused(InvalidArgumentException.class, "ExpectedBucketOwner", () -> api.createChannel(
                    channel(unique("c"), stream, "ZSTD", 60).andThen(r -> r.s3TablesDestinationConfiguration(d -> d
                            .dataFreshnessInSeconds(60).deadLetterQueueS3Configuration(q -> q.bucketARN("arn:aws:s3:::dlq")
                                    .expectedBucketOwner("12345"))
                            .s3TablesConfigurationList(t -> t.tableBucketARN("arn:aws:s3tables:us-east-1:" + ACCOUNT + ":bucket/b")
                                    .namespace("ns").tableName("t").compressionType("ZSTD")
                                    .partitionSpec(p -> p.partitionFields(f -> f.transform("TIME_HOUR").sourceName("event_time"))))))));
            // SPEC C3: the partition field must be a required date-time of the schema, checked at creation
            assertRefused(InvalidArgumentException.class, "GSRSchemaARN " + SCHEMA_ARN + ": schema /properties/order_id",
                    () -> api.createChannel(withTable(stream, t -> t.partitionSpec(p -> p.partitionFields(f -> f
                            .transform("TIME_HOUR").sourceName("order_id"))))));
            assertRefused(InvalidArgumentException.class, "/properties/shipped_at",
                    () -> api.createChannel(withTable(stream, t -> t.partitionSpec(p -> p.partitionFields(f -> f
                            .transform("TIME_HOUR").sourceName("shipped_at"))))));
            assertRefused(InvalidArgumentException.class, "file-registry/nothing", () -> api.createChannel(withStream(
                    "arn:aws:kinesis:us-east-1:" + ACCOUNT + ":stream/" + stream, rc -> rc.recordFormatType("JSON")
                            .gsrSchemaARN(SCHEMA_ARN.replace("orders", "nothing")))));
            assertRefused(InvalidArgumentException.class, "StreamConfigurationList[0].StreamARN", () -> api.createChannel(
                    withStream("arn:aws:kinesis:us-east-1:" + ACCOUNT + ":table/" + stream, rc -> rc
                            .recordFormatType("JSON").gsrSchemaARN(SCHEMA_ARN))));
            assertRefused(InvalidArgumentException.class, "GSRSchemaARN", () -> api.createChannel(withStream(
                    "arn:aws:kinesis:us-east-1:" + ACCOUNT + ":stream/" + stream, rc -> rc.recordFormatType("GSR_JSON"))));
            assertRefused(InvalidArgumentException.class, "GSRSchemaARN is in Region 'eu-west-1'", () -> api.createChannel(
                    withStream("arn:aws:kinesis:us-east-1:" + ACCOUNT + ":stream/" + stream, rc -> rc.recordFormatType("JSON")
                            .gsrSchemaARN(SCHEMA_ARN.replace("us-east-1", "eu-west-1")))));
            assertRefused(InvalidArgumentException.class, "TableBucketARN is in Region 'eu-west-1'",
                    () -> api.createChannel(withTable(stream,
                            t -> t.tableBucketARN("arn:aws:s3tables:eu-west-1:" + ACCOUNT + ":bucket/b"))));
            assertRefused(InvalidArgumentException.class, "PartitionFields", () -> api.createChannel(withTable(stream,
                    t -> t.partitionSpec(p -> p.partitionFields(f -> f.transform("TIME_DAY")
                            .sourceName("event_time"))))));
            assertRefused(InvalidArgumentException.class, "TableName", () -> api.createChannel(withTable(stream,
                    t -> t.tableName("Bad-Name"))));
            assertRefused(InvalidArgumentException.class, "EncryptionType", () -> api.createChannel(
                    channel(unique("c"), stream, "ZSTD", 60).andThen(r -> r.encryptionConfiguration(
                            e -> e.encryptionType("AES").keyId("x")))));
            assertRefused(InvalidArgumentException.class, "EncryptionConfiguration.KeyId", () -> api.createChannel(
                    channel(unique("c"), stream, "ZSTD", 60).andThen(r -> r.encryptionConfiguration(
                            e -> e.encryptionType("KMS")))));
            // a DLQ key over S3's 1 024 bytes would fail every write; a bucket S3 cannot name, every check
            assertRefused(InvalidArgumentException.class, "ErrorOutputPrefix must be at most 512 bytes",
                    () -> api.createChannel(withDlq(stream, "arn:aws:s3:::dlq", "e/".repeat(300))));
            assertRefused(InvalidArgumentException.class, "ErrorOutputPrefix", () -> api.createChannel(
                    withDlq(stream, "arn:aws:s3:::dlq", "errors/\n")));
            assertRefused(InvalidArgumentException.class, "not a valid S3 bucket name",
                    () -> api.createChannel(withDlq(stream, "arn:aws:s3:::Bad_Bucket", "errors/")));
            assertRefused(InvalidArgumentException.class, "not a valid S3 bucket name",
                    () -> api.createChannel(withDlq(stream, "arn:aws:s3:::a..b", "errors/")));
            // every string member has its AWS length
            assertRefused(InvalidArgumentException.class, "ServiceExecutionRoleARN must be at most 2048", () -> api
                    .createChannel(channel(unique("c"), stream, "ZSTD", 60).andThen(r -> r.serviceExecutionRoleARN(
                            "arn:aws:iam::" + ACCOUNT + ":role/" + "r".repeat(2048)))));
            assertRefused(InvalidArgumentException.class, "StreamConfigurationList[0].StreamARN must be at most 2048",
                    () -> api.createChannel(withStream("arn:aws:kinesis:us-east-1:" + ACCOUNT + ":stream/"
                            + "s".repeat(2048), rc -> rc.recordFormatType("JSON").gsrSchemaARN(SCHEMA_ARN))));
            assertRefused(InvalidArgumentException.class, "LogGroupName must be at most 512", () -> api.createChannel(
                    channel(unique("c"), stream, "ZSTD", 60).andThen(r -> r.loggingConfiguration(l -> l.cloudWatchLogs(
                            c -> c.enabled(true).logGroupName("g".repeat(513)).logStreamName("s"))))));
            java.util.Map<String, String> tags = new java.util.HashMap<>();
            for (int i = 0; i < 51; i++) {
                tags.put("k" + i, "v");
            }
            assertRefused(InvalidArgumentException.class, "Tags may hold at most 50", () -> api.createChannel(
                    channel(unique("c"), stream, "ZSTD", 60).andThen(r -> r.tags(tags))));
            assertRefused(InvalidArgumentException.class, "Tags: a key must be 1-128", () -> api.createChannel(
                    channel(unique("c"), stream, "ZSTD", 60).andThen(r -> r.tags(java.util.Map.of("k".repeat(129), "v")))));
            assertRefused(InvalidArgumentException.class, "NextToken", () -> api.listChannels(r -> r.nextToken("-1")));
            assertRefused(InvalidArgumentException.class, "ChannelARN",
                    () -> api.describeChannel(r -> r.channelARN("channel/x")));
            assertRefused(ResourceNotFoundException.class, "not found",
                    () -> api.describeChannel(r -> r.channelARN("arn:aws:kinesis:us-east-1:" + ACCOUNT + ":channel/none")));

            String name = unique("dup");
            api.createChannel(channel(name, stream, "ZSTD", 60));
            assertRefused(ResourceInUseException.class, name, () -> api.createChannel(channel(name, stream, "SNAPPY", 60)));
            api.createChannel(channel(unique("second"), stream, "NONE", 60));
            assertRefused(LimitExceededException.class, stream, () -> api.createChannel(channel(unique("third"), stream, "ZSTD", 60)));
            String arn = "arn:aws:kinesis:us-east-1:" + ACCOUNT + ":channel/" + name;
            assertRefused(InvalidArgumentException.class, "DataFreshnessInSeconds", () -> api.updateChannel(r -> r
                    .channelARN(arn).s3TablesDestinationConfiguration(d -> d.dataFreshnessInSeconds(90_000))));
            assertRefused(ResourceNotFoundException.class, "not found", () -> api.deleteChannel(r -> r
                    .channelARN("arn:aws:kinesis:us-east-1:" + ACCOUNT + ":channel/none")));
        }
    }

    /** SPEC C4: a channel whose stream does not exist goes FAILED with a reason that says what to fix. */
    @org.junit.jupiter.api.Test
    void aChannelOnAMissingStreamFails() throws Exception {
        Assumptions.assumeTrue(KinesisLocal.answers(), "kinesis-local is not running (scripts/peers.sh start)");
        try (KinesisClient api = client(url.toURI(), true)) {
            String name = unique("missing");
            String arn = api.createChannel(channel(name, unique("no-such-stream"), "ZSTD", 60)).channelDescription()
                    .channelARN();
            ChannelDescription d = leavingCreating(api, arn);
            assertEquals("FAILED", d.channelStatusAsString());
            assertTrue(d.channelStatusReason().contains("does not exist"), d.channelStatusReason());
        }
    }

    /** SPEC C4: the DLQ bucket is checked while CREATING; a missing one fails the channel with a reason. */
    @org.junit.jupiter.api.Test
    void aChannelWithoutItsDlqBucketFails() throws Exception {
        String stream = unique("stream");
        try (KinesisClient streams = KinesisLocal.client(); KinesisClient api = client(url.toURI(), true)) {
            streams.createStream(r -> r.streamName(stream).shardCount(1));
            String arn = api.createChannel(channel(unique("nodlq"), stream, "ZSTD", 60)).channelDescription()
                    .channelARN();
            ChannelDescription d = leavingCreating(api, arn);
            assertEquals("FAILED", d.channelStatusAsString());
            assertTrue(d.channelStatusReason().contains("DeadLetterQueueS3Configuration.BucketARN: bucket dlq does not exist"),
                    d.channelStatusReason());
        }
    }

    /** SPEC C4: a channel whose checks pass goes ACTIVE, from the control plane alone (no ingest runs here). */
    @org.junit.jupiter.api.Test
    void aChannelWhoseChecksPassGoesActive() throws Exception {
        String stream = unique("stream");
        String bucket = unique("dlq");
        s3.createBucket(b -> b.bucket(bucket));
        try (KinesisClient streams = KinesisLocal.client(); KinesisClient api = client(url.toURI(), true)) {
            streams.createStream(r -> r.streamName(stream).shardCount(1));
            KinesisLocal.awaitActive(streams, stream);
            String arn = api.createChannel(withDlq(stream, "arn:aws:s3:::" + bucket, "errors/")).channelDescription()
                    .channelARN();
            ChannelDescription d = leavingCreating(api, arn);
            assertEquals("ACTIVE", d.channelStatusAsString(), d.channelStatusReason());

            // UPDATING until every process that reads the channels has read the update. Another stage's
            // process read the channels a moment ago, before the update
            String stage = unique("stage");
            store.read(stage, 0, System.currentTimeMillis());
            ChannelDescription updated = api.updateChannel(r -> r.channelARN(arn)
                    .s3TablesDestinationConfiguration(u -> u.dataFreshnessInSeconds(120))).channelDescription();
            assertEquals(ChannelStatus.UPDATING, updated.channelStatus(), "the stage has not read the update");
            assertEquals(ChannelStatus.UPDATING, api.describeChannel(r -> r.channelARN(arn)).channelDescription()
                    .channelStatus());
            assertTrue(api.listChannels(r -> { }).channelSummaries().stream().anyMatch(c -> c.channelARN().equals(arn)
                    && c.channelStatus() == ChannelStatus.UPDATING));
            store.read(stage, Long.MAX_VALUE / 2, System.currentTimeMillis()); // it reads the channels again
            assertEquals(ChannelStatus.ACTIVE, api.describeChannel(r -> r.channelARN(arn)).channelDescription()
                    .channelStatus());
        }
    }

    /**
     * A source stream encrypted with the AWS managed key aws/kinesis cannot feed a delivery (the seed: "you
     * cannot create a delivery"); the channel fails saying so.
     */
    @org.junit.jupiter.api.Test
    void aStreamEncryptedWithTheAwsManagedKeyFailsTheChannel() throws Exception {
        String awsManaged = "arn:aws:kms:us-east-1:" + ACCOUNT + ":key/aaaaaaaa-0000-4000-8000-000000000001";
        String customer = "arn:aws:kms:us-east-1:" + ACCOUNT + ":key/cccccccc-0000-4000-8000-000000000002";
        KmsStubResource.describing(kms, java.util.Set.of(awsManaged));
        String bucket = unique("dlq");
        s3.createBucket(b -> b.bucket(bucket));
        try (KinesisClient streams = KinesisLocal.client(); KinesisClient api = client(url.toURI(), true)) {
            for (String key : List.of("alias/aws/kinesis", awsManaged)) { // its alias, and its key ARN (DescribeKey)
                ChannelDescription d = leavingCreating(api, api.createChannel(withDlq(encryptedWith(streams, key),
                        "arn:aws:s3:::" + bucket, "errors/")).channelDescription().channelARN());
                assertEquals("FAILED", d.channelStatusAsString(), key + ": " + d.channelStatusReason());
                assertTrue(d.channelStatusReason().contains("encrypted with the AWS managed key aws/kinesis"),
                        d.channelStatusReason());
            }
            ChannelDescription destination = leavingCreating(api, api.createChannel(withDlq(encryptedWith(streams, null),
                    "arn:aws:s3:::" + bucket, "errors/").andThen(r -> r.encryptionConfiguration(e -> e
                            .encryptionType("KMS").keyId(awsManaged)))).channelDescription().channelARN());
            assertEquals("FAILED", destination.channelStatusAsString(), destination.channelStatusReason());
            assertTrue(destination.channelStatusReason().startsWith("EncryptionConfiguration.KeyId " + awsManaged
                    + " is an AWS managed key"), destination.channelStatusReason());

            ChannelDescription ok = leavingCreating(api, api.createChannel(withDlq(encryptedWith(streams, customer),
                    "arn:aws:s3:::" + bucket, "errors/")).channelDescription().channelARN());
            assertEquals("ACTIVE", ok.channelStatusAsString(), ok.channelStatusReason());
        }
        List<String> described = kms.calls("TrentService.DescribeKey").stream()
                .map(c -> c.request().path("KeyId").asText()).toList();
        assertTrue(described.containsAll(List.of(awsManaged, customer)), described.toString());
        assertFalse(described.contains("alias/aws/kinesis"), "the alias tells without asking KMS");
    }

    /** A new stream of kinesis-local, encrypted with {@code key} unless it is null. */
    private static String encryptedWith(KinesisClient streams, String key) throws InterruptedException {
        String stream = unique("stream");
        streams.createStream(r -> r.streamName(stream).shardCount(1));
        KinesisLocal.awaitActive(streams, stream);
        if (key != null) {
            streams.startStreamEncryption(r -> r.streamName(stream).encryptionType("KMS").keyId(key));
            KinesisLocal.awaitActive(streams, stream);
        }
        return stream;
    }

    /** The channel as soon as its checks took it out of CREATING (30 s at most). */
    private static ChannelDescription leavingCreating(KinesisClient api, String arn) throws InterruptedException {
        ChannelDescription d = api.describeChannel(r -> r.channelARN(arn)).channelDescription();
        for (int i = 0; i < 300 && "CREATING".equals(d.channelStatusAsString()); i++) {
            Thread.sleep(100);
            d = api.describeChannel(r -> r.channelARN(arn)).channelDescription();
        }
        return d;
    }

    /** A misspelt nested member is named with its path, not ignored (the SDK cannot send one, so plain HTTP). */
    @org.junit.jupiter.api.Test
    void anUnknownNestedMemberIsNamed() throws Exception {
        String body = """
                {"ChannelName": "typo", "StreamConfigurationList": [{"StreamArn": "arn:aws:kinesis:us-east-1:000000000000:stream/s",
                 "RecordConfiguration": {"RecordFormatType": "JSON", "GSRSchemaARN": "%s"}}]}""".formatted(SCHEMA_ARN);
        java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient().send(
                io.streamtables.auth.TestSigning.signedPost(url.toURI(), "Kinesis_20131202.CreateChannel",
                        "application/x-amz-json-1.1", body),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(400, response.statusCode());
        assertTrue(response.body().contains("StreamConfigurationList[0].StreamArn is not a member"), response.body());

        // a Kinesis operation this service does not serve is that, whatever its members
        java.net.http.HttpResponse<String> putRecords = java.net.http.HttpClient.newHttpClient().send(
                io.streamtables.auth.TestSigning.signedPost(url.toURI(), "Kinesis_20131202.PutRecords",
                        "application/x-amz-json-1.1", "{\"StreamName\": \"s\", \"Records\": []}"),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(400, putRecords.statusCode());
        assertTrue(putRecords.body().contains("UnknownOperationException"), putRecords.body());
    }

    static void assertRefused(Class<? extends AwsServiceException> type, String mention, Runnable call) {
        AwsServiceException e = assertThrows(type, call::run);
        assertTrue(e.awsErrorDetails().errorMessage().contains(mention),
                "'" + e.awsErrorDetails().errorMessage() + "' should mention " + mention);
    }
}
