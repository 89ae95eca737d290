package io.streamtables.controlplane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.streamtables.auth.AccountsTest;
import java.net.URL;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.DataFormat;
import software.amazon.awssdk.services.glue.model.ResourceNumberLimitExceededException;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.LimitExceededException;

/**
 * Quotas per account, small here, through the official clients: past each, the AWS error naming
 * the setting, and nothing created. An account of its own per run (the test database outlives runs). Without them,
 * an account could create channels, registries, schemas and versions without bound.
 */
@QuarkusTest
@TestProfile(QuotasTest.SmallQuotas.class)
class QuotasTest {

    static final String ACCOUNT = String.format("%012d", ThreadLocalRandom.current().nextLong(200_000_000_000L,
            999_999_999_999L));
    /** The bytes quota's account, so that the counts above leave it alone. */
    static final String BYTES_ACCOUNT = String.format("%012d", ThreadLocalRandom.current().nextLong(200_000_000_000L,
            999_999_999_999L));

    public static class SmallQuotas implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.ofEntries(Map.entry("delivery.quotas.channels-per-account", "2"),
                    Map.entry("delivery.quotas.registries-per-account", "2"),
                    Map.entry("delivery.quotas.schemas-per-account", "3"),
                    Map.entry("delivery.quotas.versions-per-schema", "2"),
                    Map.entry("delivery.quotas.definition-bytes-per-account", "1K"),
                    Map.entry("delivery.auth.principals.quota.access-key-id", "QUOTAKEY"),
                    Map.entry("delivery.auth.principals.quota.secret-access-key", "quota-secret"),
                    Map.entry("delivery.auth.principals.quota.account-id", ACCOUNT),
                    Map.entry("delivery.auth.principals.quota-bytes.access-key-id", "QUOTABYTESKEY"),
                    Map.entry("delivery.auth.principals.quota-bytes.secret-access-key", "quota-bytes-secret"),
                    Map.entry("delivery.auth.principals.quota-bytes.account-id", BYTES_ACCOUNT),
                    Map.entry("delivery.accounts.\"" + ACCOUNT + "\".dlq-buckets", "dlq"));
        }
    }

    @TestHTTPResource("/")
    URL url;

    @Test
    void channelsPastTheQuotaAreRefused() throws Exception {
        try (KinesisClient api = KinesisClient.builder().endpointOverride(url.toURI()).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("QUOTAKEY",
                        "quota-secret"))).httpClientBuilder(UrlConnectionHttpClient.builder()).build()) {
            for (int i = 0; i < 2; i++) {
                api.createChannel(AccountsTest.channelOf(ACCOUNT, ChannelApiTest.unique("q")));
            }
            String third = ChannelApiTest.unique("q");
            LimitExceededException refused = assertThrows(LimitExceededException.class,
                    () -> api.createChannel(AccountsTest.channelOf(ACCOUNT, third)));
            assertTrue(refused.awsErrorDetails().errorMessage().contains("delivery.quotas.channels-per-account"),
                    refused.awsErrorDetails().errorMessage());
            assertEquals(2, api.listChannels(r -> { }).channelSummaries().size());
        }
    }

    @Test
    void registriesSchemasAndVersionsPastTheirQuotasAreRefused() throws Exception {
        try (GlueClient glue = GlueClient.builder().endpointOverride(url.toURI()).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("QUOTAKEY",
                        "quota-secret"))).httpClientBuilder(UrlConnectionHttpClient.builder()).build()) {
            glue.createRegistry(r -> r.registryName("r1"));
            glue.createRegistry(r -> r.registryName("r2"));
            assertRefused("registries-per-account", () -> glue.createRegistry(r -> r.registryName("r3")));
            assertEquals(2, glue.listRegistries(r -> { }).registries().size());

            for (String name : new String[] {"s1", "s2", "s3"}) {
                glue.createSchema(r -> r.registryId(id -> id.registryName("r1")).schemaName(name)
                        .dataFormat(DataFormat.JSON).schemaDefinition(definition(1)));
            }
            assertRefused("schemas-per-account", () -> glue.createSchema(r -> r.registryId(id -> id.registryName("r2"))
                    .schemaName("s4").dataFormat(DataFormat.JSON).schemaDefinition(definition(1))));

            glue.registerSchemaVersion(r -> r.schemaId(id -> id.registryName("r1").schemaName("s1"))
                    .schemaDefinition(definition(2)));
            // at the quota, a definition it has is its version, as before; a new one is refused
            assertEquals(2L, glue.registerSchemaVersion(r -> r.schemaId(id -> id.registryName("r1").schemaName("s1"))
                    .schemaDefinition(definition(2))).versionNumber());
            assertRefused("versions-per-schema", () -> glue.registerSchemaVersion(r -> r.schemaId(id -> id
                    .registryName("r1").schemaName("s1")).schemaDefinition(definition(3))));
            assertEquals(2L, glue.getSchema(r -> r.schemaId(id -> id.registryName("r1").schemaName("s1")))
                    .latestSchemaVersion());
        }
    }

    /** 1 KiB of definitions: a second of 600 bytes is refused; one the schema has costs nothing; a delete frees. */
    @Test
    void definitionBytesPastTheQuotaAreRefused() throws Exception {
        try (GlueClient glue = GlueClient.builder().endpointOverride(url.toURI()).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("QUOTABYTESKEY",
                        "quota-bytes-secret"))).httpClientBuilder(UrlConnectionHttpClient.builder()).build()) {
            glue.createRegistry(r -> r.registryName("r"));
            glue.createSchema(r -> r.registryId(id -> id.registryName("r")).schemaName("s")
                    .dataFormat(DataFormat.JSON).schemaDefinition(definition(1, 600)));
            assertRefused("definition-bytes-per-account", () -> glue.registerSchemaVersion(r -> r
                    .schemaId(id -> id.registryName("r").schemaName("s")).schemaDefinition(definition(2, 600))));
            assertRefused("definition-bytes-per-account", () -> glue.createSchema(r -> r
                    .registryId(id -> id.registryName("r")).schemaName("t").dataFormat(DataFormat.JSON)
                    .schemaDefinition(definition(2, 600))));
            assertEquals(1L, glue.registerSchemaVersion(r -> r.schemaId(id -> id.registryName("r").schemaName("s"))
                    .schemaDefinition(definition(1, 600))).versionNumber(), "a definition it has costs nothing");

            glue.deleteSchema(r -> r.schemaId(id -> id.registryName("r").schemaName("s")));
            glue.createSchema(r -> r.registryId(id -> id.registryName("r")).schemaName("t")
                    .dataFormat(DataFormat.JSON).schemaDefinition(definition(2, 600)));
        }
    }

    private static void assertRefused(String setting, Runnable call) {
        ResourceNumberLimitExceededException e = assertThrows(ResourceNumberLimitExceededException.class, call::run);
        assertTrue(e.awsErrorDetails().errorMessage().contains("delivery.quotas." + setting),
                e.awsErrorDetails().errorMessage());
    }

    /** A JSON Schema that differs by its {@code n}: each is a new version. */
    private static String definition(int n) {
        return "{\"type\":\"object\",\"properties\":{\"f" + n + "\":{\"type\":\"string\"}},\"title\":\""
                + UUID.nameUUIDFromBytes(new byte[] {(byte) n}) + "\"}";
    }

    /** {@link #definition(int)} with a description that makes it {@code bytes} long. */
    private static String definition(int n, int bytes) {
        String head = definition(n);
        String text = head.substring(0, head.length() - 1) + ",\"description\":\"\"}";
        String padded = text.substring(0, text.length() - 2) + "d".repeat(bytes - text.length()) + "\"}";
        assertEquals(bytes, padded.length());
        return padded;
    }
}
