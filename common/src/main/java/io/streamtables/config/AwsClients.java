package io.streamtables.config;

import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.client.builder.AwsSyncClientBuilder;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.core.client.builder.SdkClientBuilder;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;

/**
 * Builds plain AWS SDK clients from an {@link AwsClientConfig}, on the URL-connection HTTP client, each call bounded
 * as a whole: the HTTP client's timeouts bound connecting and each read, so a peer that trickles its answer a byte
 * at a time would otherwise hold the calling thread for good.
 */
public final class AwsClients {

    /** The most one attempt may take, its reading included. */
    public static final Duration API_CALL_ATTEMPT_TIMEOUT = Duration.ofSeconds(30);
    /** The most a call may take, its retries included. */
    public static final Duration API_CALL_TIMEOUT = Duration.ofMinutes(2);
    /** How many KB of an answer closed early the JDK reads on, to keep its connection alive. */
    static final String KEEP_ALIVE_REMAINING_DATA = "http.KeepAlive.remainingData";

    static {
        closeAnswersCutShort();
    }

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
        return bounded(builder).build();
    }

    /** The builder with {@link #API_CALL_TIMEOUT} and {@link #API_CALL_ATTEMPT_TIMEOUT}, unless it has its own. */
    public static <B extends SdkClientBuilder<B, ?>> B bounded(B builder) {
        ClientOverrideConfiguration given = builder.overrideConfiguration();
        return builder.overrideConfiguration(given.toBuilder()
                .apiCallTimeout(given.apiCallTimeout().orElse(API_CALL_TIMEOUT))
                .apiCallAttemptTimeout(given.apiCallAttemptTimeout().orElse(API_CALL_ATTEMPT_TIMEOUT)).build());
    }

    /**
     * An answer closed before its end (a call cut at its bound, a Parquet read that seeks) is handed by the JDK to its
     * keep-alive cleaner, which reads the rest to reuse the connection under a lock that the closing caller may still
     * ask for: with a peer that trickles, the caller then waits as long as the peer goes on. With no data worth
     * reading on, the connection is closed instead. The JDK reads the setting once, when the cleaner's class loads:
     * call this before any URL-connection client reads an answer (the AWS clients built here, Iceberg's S3 client).
     */
    public static void closeAnswersCutShort() {
        if (System.getProperty(KEEP_ALIVE_REMAINING_DATA) == null) {
            System.setProperty(KEEP_ALIVE_REMAINING_DATA, "0");
        }
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
