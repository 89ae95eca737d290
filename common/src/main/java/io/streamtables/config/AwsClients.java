package io.streamtables.config;

import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsSyncClientBuilder;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;

/** Builds plain AWS SDK clients from an {@link AwsClientConfig}, on the URL-connection HTTP client. */
public final class AwsClients {

    private AwsClients() {
    }

    /**
     * @param prefix the configuration prefix, named in errors (e.g. {@code delivery.kinesis})
     */
    public static <B extends AwsClientBuilder<B, C> & AwsSyncClientBuilder<B, C>, C> C build(B builder,
            AwsClientConfig config, String prefix, String defaultRegion) {
        builder.httpClientBuilder(httpClient())
                .region(Region.of(config.aws().region().orElse(defaultRegion)))
                .credentialsProvider(credentials(config.aws().credentials(), prefix));
        config.endpointOverride().ifPresent(builder::endpointOverride);
        return builder.build();
    }

    /** The HTTP client of every AWS client the service builds. */
    public static UrlConnectionHttpClient.Builder httpClient() {
        return UrlConnectionHttpClient.builder()
                .connectionTimeout(Duration.ofSeconds(5))
                .socketTimeout(Duration.ofSeconds(30));
    }

    public static AwsCredentialsProvider credentials(AwsClientConfig.Credentials c, String prefix) {
        if ("static".equals(c.type())) {
            String key = c.staticProvider().accessKeyId().orElseThrow(() -> new IllegalArgumentException(
                    prefix + ".aws.credentials.static-provider.access-key-id is required when the type is static"));
            String secret = c.staticProvider().secretAccessKey().orElseThrow(() -> new IllegalArgumentException(
                    prefix + ".aws.credentials.static-provider.secret-access-key is required when the type is static"));
            return StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret));
        }
        return DefaultCredentialsProvider.builder().build();
    }
}
