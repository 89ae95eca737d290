package io.streamtables.registry;

import java.net.URISyntaxException;
import java.net.URL;
import java.util.UUID;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.glue.GlueClient;

/** The official Glue client pointed at the test server, and names that do not collide across runs. */
final class TestGlue {

    static final String REGION = "us-east-1";
    static final String ACCOUNT = "000000000000";

    private TestGlue() {
    }

    static GlueClient client(URL url) {
        try {
            return GlueClient.builder().endpointOverride(url.toURI()).region(Region.US_EAST_1)
                    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                    .httpClientBuilder(UrlConnectionHttpClient.builder()).build();
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** The test database outlives a run (target/test-delivery.db), so every test names its things afresh. */
    static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    static String schemaArn(String registry, String schema) {
        return "arn:aws:glue:" + REGION + ":" + ACCOUNT + ":schema/" + registry + "/" + schema;
    }

    static String registryArn(String registry) {
        return "arn:aws:glue:" + REGION + ":" + ACCOUNT + ":registry/" + registry;
    }
}
