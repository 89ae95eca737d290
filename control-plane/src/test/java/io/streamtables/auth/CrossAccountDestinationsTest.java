package io.streamtables.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.net.URL;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.AccessDeniedException;

/**
 * With other accounts' destinations allowed, a channel may read another account's stream, and still only assume a
 * role of its own account: before, the flag dropped the role's check too, so a tenant could name another's role.
 */
@QuarkusTest
@TestProfile(CrossAccountDestinationsTest.Allowed.class)
class CrossAccountDestinationsTest {

    public static class Allowed implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("delivery.auth.cross-account-destinations", "true");
        }
    }

    @TestHTTPResource("/")
    URL url;

    @Test
    void anotherAccountsStreamIsAllowedAndItsRoleIsNot() throws Exception {
        String name = "cross-" + UUID.randomUUID().toString().substring(0, 8);
        try (KinesisClient them = KinesisClient.builder().endpointOverride(url.toURI()).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("OTHERKEY",
                        "other-secret"))).httpClientBuilder(UrlConnectionHttpClient.builder()).build()) {
            AccessDeniedException e = assertThrows(AccessDeniedException.class, () -> them.createChannel(
                    AccountsTest.channelOf(AccountsTest.THEIRS, name + "-role").andThen(r -> r
                            .serviceExecutionRoleARN("arn:aws:iam::" + AccountsTest.MINE + ":role/delivery"))));
            assertTrue(e.awsErrorDetails().errorMessage().startsWith("ServiceExecutionRoleARN is in account "
                    + AccountsTest.MINE + ", not the caller's account " + AccountsTest.THEIRS + ": a channel's role "
                    + "must be of its own account"), e.awsErrorDetails().errorMessage());

            String arn = them.createChannel(AccountsTest.channelOf(AccountsTest.THEIRS, name).andThen(r -> r
                    .streamConfigurationList(s -> s.streamARN("arn:aws:kinesis:us-east-1:" + AccountsTest.MINE
                            + ":stream/shared").recordConfiguration(rc -> rc.recordFormatType("JSON")
                                    .gsrSchemaARN(AccountsTest.SCHEMA.formatted(AccountsTest.THEIRS))))))
                    .channelDescription().channelARN();
            assertEquals("arn:aws:kinesis:us-east-1:" + AccountsTest.THEIRS + ":channel/" + name, arn);
            them.deleteChannel(r -> r.channelARN(arn));
        }
    }
}
