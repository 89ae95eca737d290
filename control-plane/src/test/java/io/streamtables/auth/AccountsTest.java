package io.streamtables.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.streamtables.controlplane.ChannelApiTest;
import java.net.URL;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.DataFormat;
import software.amazon.awssdk.services.glue.model.EntityNotFoundException;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.AccessDeniedException;
import software.amazon.awssdk.services.kinesis.model.ChannelDescription;
import software.amazon.awssdk.services.kinesis.model.CreateChannelRequest;
import software.amazon.awssdk.services.kinesis.model.ResourceNotFoundException;

/**
 * Accounts own their channels and schemas: through the official SDK clients, a caller of another account neither
 * sees nor changes them, and its refused requests change nothing; the stages' own principal reads every account's
 * schemas but changes none.
 */
@QuarkusTest
public class AccountsTest {

    static final String MINE = "000000000000";
    static final String THEIRS = "111111111111";
    static final String SCHEMA = "arn:aws:glue:us-east-1:%s:schema/file-registry/orders";

    @TestHTTPResource("/")
    URL url;

    private KinesisClient kinesis(String key, String secret) throws Exception {
        return KinesisClient.builder().endpointOverride(url.toURI()).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret)))
                .httpClientBuilder(UrlConnectionHttpClient.builder()).build();
    }

    private GlueClient glue(String key, String secret) throws Exception {
        return GlueClient.builder().endpointOverride(url.toURI()).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret)))
                .httpClientBuilder(UrlConnectionHttpClient.builder()).build();
    }

    /** The tests' usual channel, with every resource in {@code account}. */
    public static Consumer<CreateChannelRequest.Builder> channelOf(String account, String name) {
        return ChannelApiTest.channel(name, "s-" + name, "ZSTD", 60).andThen(r -> r
                .serviceExecutionRoleARN("arn:aws:iam::" + account + ":role/delivery")
                .streamConfigurationList(s -> s.streamARN("arn:aws:kinesis:us-east-1:" + account + ":stream/s-" + name)
                        .recordConfiguration(rc -> rc.recordFormatType("JSON").gsrSchemaARN(SCHEMA.formatted(account))))
                .s3TablesDestinationConfiguration(d -> d.dataFreshnessInSeconds(60)
                        .deadLetterQueueS3Configuration(q -> q.bucketARN("arn:aws:s3:::dlq").expectedBucketOwner(account))
                        .s3TablesConfigurationList(t -> t.tableBucketARN("arn:aws:s3tables:us-east-1:" + account
                                + ":bucket/b").namespace("ns").tableName(name.replace('-', '_')).compressionType("ZSTD")
                                .partitionSpec(p -> p.partitionFields(f -> f.transform("TIME_HOUR")
                                        .sourceName("event_time"))))));
    }

    @Test
    void anotherAccountsChannelIsNotFoundAndStaysAsItWas() throws Exception {
        String name = "acct-" + UUID.randomUUID().toString().substring(0, 8);
        try (KinesisClient me = kinesis("test", "test"); KinesisClient them = kinesis("OTHERKEY", "other-secret")) {
            String arn = me.createChannel(channelOf(MINE, name)).channelDescription().channelARN();
            assertEquals("arn:aws:kinesis:us-east-1:" + MINE + ":channel/" + name, arn);

            assertRefused(ResourceNotFoundException.class, () -> them.describeChannel(r -> r.channelARN(arn)));
            assertRefused(ResourceNotFoundException.class, () -> them.updateChannel(r -> r.channelARN(arn)
                    .s3TablesDestinationConfiguration(d -> d.dataFreshnessInSeconds(120))));
            assertRefused(ResourceNotFoundException.class, () -> them.deleteChannel(r -> r.channelARN(arn)));
            assertTrue(them.listChannels(r -> { }).channelSummaries().stream().noneMatch(c -> c.channelARN().equals(arn)));
            ChannelDescription unchanged = me.describeChannel(r -> r.channelARN(arn)).channelDescription();
            assertEquals(60, unchanged.s3TablesDestinationConfiguration().dataFreshnessInSeconds(),
                    "the refused update changed nothing");

            // the same name in their account is their own channel, which I do not see
            String theirs = them.createChannel(channelOf(THEIRS, name)).channelDescription().channelARN();
            assertEquals("arn:aws:kinesis:us-east-1:" + THEIRS + ":channel/" + name, theirs);
            assertTrue(me.listChannels(r -> { }).channelSummaries().stream().noneMatch(c -> c.channelARN().equals(theirs)));
            them.deleteChannel(r -> r.channelARN(theirs));
            assertEquals(arn, me.describeChannel(r -> r.channelARN(arn)).channelDescription().channelARN(),
                    "deleting theirs left mine");
        }
    }

    @Test
    void aChannelMayNameOnlyItsOwnAccountsResources() throws Exception {
        String name = "cross-" + UUID.randomUUID().toString().substring(0, 8);
        try (KinesisClient them = kinesis("OTHERKEY", "other-secret")) {
            AccessDeniedException e = assertThrows(AccessDeniedException.class, () -> them.createChannel(
                    channelOf(THEIRS, name).andThen(r -> r.streamConfigurationList(s -> s
                            .streamARN("arn:aws:kinesis:us-east-1:" + MINE + ":stream/mine")
                            .recordConfiguration(rc -> rc.recordFormatType("JSON").gsrSchemaARN(SCHEMA.formatted(THEIRS)))))));
            assertTrue(e.awsErrorDetails().errorMessage().startsWith("StreamConfigurationList[0].StreamARN is in account "
                    + MINE + ", not the caller's account " + THEIRS), e.awsErrorDetails().errorMessage());
            assertThrows(AccessDeniedException.class, () -> them.createChannel(channelOf(THEIRS, name).andThen(r -> r
                    .s3TablesDestinationConfiguration(d -> d.dataFreshnessInSeconds(60)
                            .deadLetterQueueS3Configuration(q -> q.bucketARN("arn:aws:s3:::dlq").expectedBucketOwner(MINE))
                            .s3TablesConfigurationList(t -> t.tableBucketARN("arn:aws:s3tables:us-east-1:" + THEIRS
                                    + ":bucket/b").namespace("ns").tableName("t").compressionType("ZSTD")
                                    .partitionSpec(p -> p.partitionFields(f -> f.transform("TIME_HOUR")
                                            .sourceName("event_time"))))))));
            // every role the service assumes trusts it: another account's would read and write as that account
            e = assertThrows(AccessDeniedException.class, () -> them.createChannel(channelOf(THEIRS, name)
                    .andThen(r -> r.serviceExecutionRoleARN("arn:aws:iam::" + MINE + ":role/delivery"))));
            assertTrue(e.awsErrorDetails().errorMessage().startsWith("ServiceExecutionRoleARN is in account " + MINE),
                    e.awsErrorDetails().errorMessage());
            // the service writes their dead letters as itself: only a bucket the operator listed for their account
            e = assertThrows(AccessDeniedException.class, () -> them.createChannel(channelOf(THEIRS, name).andThen(r -> r
                    .s3TablesDestinationConfiguration(d -> d.dataFreshnessInSeconds(60)
                            .deadLetterQueueS3Configuration(q -> q.bucketARN("arn:aws:s3:::warehouse")
                                    .expectedBucketOwner(THEIRS).errorOutputPrefix("stolen/"))
                            .s3TablesConfigurationList(t -> t.tableBucketARN("arn:aws:s3tables:us-east-1:" + THEIRS
                                    + ":bucket/b").namespace("ns").tableName("t").compressionType("ZSTD")
                                    .partitionSpec(p -> p.partitionFields(f -> f.transform("TIME_HOUR")
                                            .sourceName("event_time"))))))));
            assertTrue(e.awsErrorDetails().errorMessage().startsWith("DeadLetterQueueS3Configuration.BucketARN "
                    + "arn:aws:s3:::warehouse is not a DLQ bucket the operator allows account " + THEIRS),
                    e.awsErrorDetails().errorMessage());
            assertTrue(them.listChannels(r -> { }).channelSummaries().stream()
                    .noneMatch(c -> c.channelName().equals(name)), "nothing was stored");
        }
    }

    @Test
    void schemasBelongToTheirAccountAndTheStagesReadThemAll() throws Exception {
        String registry = "acct-" + UUID.randomUUID().toString().substring(0, 8);
        String v1 = "{\"type\": \"object\"}";
        try (GlueClient me = glue("test", "test"); GlueClient them = glue("OTHERKEY", "other-secret");
                GlueClient stages = glue("STAGESKEY", "stages-secret")) {
            me.createRegistry(r -> r.registryName(registry));
            String versionId = me.createSchema(r -> r.registryId(id -> id.registryName(registry)).schemaName("s")
                    .dataFormat(DataFormat.JSON).schemaDefinition(v1)).schemaVersionId();
            String schemaArn = "arn:aws:glue:us-east-1:" + MINE + ":schema/" + registry + "/s";

            assertRefused(EntityNotFoundException.class, () -> them.getSchema(r -> r.schemaId(id -> id.schemaArn(schemaArn))));
            assertRefused(EntityNotFoundException.class, () -> them.getSchemaVersion(r -> r.schemaVersionId(versionId)));
            assertRefused(EntityNotFoundException.class, () -> them.registerSchemaVersion(r -> r
                    .schemaId(id -> id.schemaArn(schemaArn)).schemaDefinition("{\"type\": \"object\", \"title\": \"x\"}")));
            assertRefused(EntityNotFoundException.class, () -> them.deleteSchema(r -> r.schemaId(id -> id.schemaArn(schemaArn))));
            assertFalse(them.listRegistries(r -> { }).registries().stream().anyMatch(r -> r.registryName().equals(registry)));
            // their registry of the same name is theirs
            assertEquals("arn:aws:glue:us-east-1:" + THEIRS + ":registry/" + registry,
                    them.createRegistry(r -> r.registryName(registry)).registryArn());

            assertEquals(v1, stages.getSchemaVersion(r -> r.schemaVersionId(versionId)).schemaDefinition());
            assertEquals(schemaArn, stages.getSchemaVersion(r -> r.schemaId(id -> id.schemaArn(schemaArn))
                    .schemaVersionNumber(n -> n.latestVersion(true))).schemaArn());
            assertRefused(EntityNotFoundException.class, () -> stages.registerSchemaVersion(r -> r
                    .schemaId(id -> id.schemaArn(schemaArn)).schemaDefinition("{\"type\": \"object\", \"title\": \"x\"}")));

            assertEquals(1L, me.getSchema(r -> r.schemaId(id -> id.schemaArn(schemaArn))).latestSchemaVersion(),
                    "the refused registrations added no version");
        }
    }

    static void assertRefused(Class<? extends AwsServiceException> type, Runnable call) {
        AwsServiceException e = assertThrows(type, call::run);
        assertEquals(400, e.statusCode(), e.getMessage());
    }
}
