package io.streamtables.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.streamtables.controlplane.ChannelApiTest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.client.builder.SdkSyncClientBuilder;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.auth.spi.scheme.AuthScheme;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * The official Kinesis and Glue clients against the running API, with right and wrong keys (JSON and CBOR): only a
 * request a principal signed gets through, and a refused one changes nothing.
 */
@QuarkusTest
class ApiAuthenticationTest {

    static final StaticCredentialsProvider TESTER = StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test"));

    @TestHTTPResource("/")
    URL url;

    /** A client as users build one, with no retries (a refused signature is retried as a clock skew otherwise). */
    <B extends software.amazon.awssdk.awscore.client.builder.AwsClientBuilder<B, ?> & SdkSyncClientBuilder<B, ?>> B
            configure(B builder, AwsCredentialsProvider credentials, Consumer<B> change) {
        try {
            builder.endpointOverride(url.toURI()).region(Region.US_EAST_1).credentialsProvider(credentials)
                    .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
                    .httpClient(UrlConnectionHttpClient.create());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalArgumentException(e);
        }
        change.accept(builder);
        return builder;
    }

    KinesisClient kinesis(boolean cbor, AwsCredentialsProvider credentials, Consumer<software.amazon.awssdk.services.kinesis.KinesisClientBuilder> change) {
        System.setProperty("aws.cborEnabled", Boolean.toString(cbor)); // read when the client is built
        try {
            return configure(KinesisClient.builder(), credentials, change).build();
        } finally {
            System.clearProperty("aws.cborEnabled");
        }
    }

    GlueClient glue(AwsCredentialsProvider credentials) {
        return configure(GlueClient.builder(), credentials, b -> { }).build();
    }

    static String errorCode(Executable call) {
        return assertThrows(AwsServiceException.class, call).awsErrorDetails().errorCode();
    }

    @ParameterizedTest(name = "cbor={0}")
    @ValueSource(booleans = {false, true})
    void aPrincipalsKeysGetInAndNoOtherDo(boolean cbor) {
        try (KinesisClient right = kinesis(cbor, TESTER, b -> { });
                KinesisClient wrongSecret = kinesis(cbor, keys("test", "guessed"), b -> { });
                KinesisClient unknownKey = kinesis(cbor, keys("AKIAUNKNOWN", "test"), b -> { });
                KinesisClient unsigned = kinesis(cbor, AnonymousCredentialsProvider.create(), b -> { });
                KinesisClient temporary = kinesis(cbor, StaticCredentialsProvider.create(
                        AwsSessionCredentials.create("ASIATEMPORARY", "temporary-secret", "session-token-1")), b -> { });
                KinesisClient temporaryWithoutToken = kinesis(cbor, keys("ASIATEMPORARY", "temporary-secret"), b -> { })) {
            right.listChannels(r -> { });
            temporary.listChannels(r -> { });
            assertEquals("InvalidSignatureException", errorCode(() -> wrongSecret.listChannels(r -> { })));
            assertEquals("InvalidSignatureException", errorCode(() -> unknownKey.listChannels(r -> { })));
            assertEquals("MissingAuthenticationTokenException", errorCode(() -> unsigned.listChannels(r -> { })));
            assertEquals("UnrecognizedClientException", errorCode(() -> temporaryWithoutToken.listChannels(r -> { })));
        }
        try (GlueClient right = glue(TESTER); GlueClient wrong = glue(keys("test", "guessed"))) {
            right.listRegistries(r -> { });
            assertEquals("InvalidSignatureException", errorCode(() -> wrong.listRegistries(r -> { })));
        }
    }

    @ParameterizedTest(name = "cbor={0}")
    @ValueSource(booleans = {false, true})
    void aRefusedCreateChangesNothing(boolean cbor) {
        String registry = "auth-" + UUID.randomUUID().toString().substring(0, 8);
        try (KinesisClient tampering = kinesis(cbor, TESTER, b -> b.httpClient(
                        new ChangingBodyAfterSigning(UrlConnectionHttpClient.create(), registry, registry.toUpperCase())));
                KinesisClient stale = kinesis(cbor, TESTER, b -> b.putAuthScheme(
                        new SigningAt(Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-20)))));
                KinesisClient right = kinesis(cbor, TESTER, b -> { });
                GlueClient wrongGlue = glue(keys("test", "guessed")); GlueClient rightGlue = glue(TESTER)) {
            String name = registry; // the channel name the tampering client changes after signing
            // valid requests: without the signature check, each would create a channel
            assertEquals("InvalidSignatureException", errorCode(() -> tampering.createChannel(
                    ChannelApiTest.channel(name, "auth-stream", "ZSTD", 60))));
            AwsServiceException expired = assertThrows(AwsServiceException.class, () -> stale.createChannel(
                    ChannelApiTest.channel(name, "auth-stream", "ZSTD", 60)));
            assertEquals("InvalidSignatureException", expired.awsErrorDetails().errorCode());
            assertTrue(expired.awsErrorDetails().errorMessage().startsWith("Signature expired: "),
                    expired.awsErrorDetails().errorMessage());
            assertFalse(right.listChannels(r -> { }).channelSummaries().stream()
                    .anyMatch(c -> c.channelName().equalsIgnoreCase(name)));

            assertEquals("InvalidSignatureException",
                    errorCode(() -> wrongGlue.createRegistry(r -> r.registryName(registry))));
            assertEquals("EntityNotFoundException",
                    errorCode(() -> rightGlue.getRegistry(r -> r.registryId(id -> id.registryName(registry)))));
        }
    }

    static StaticCredentialsProvider keys(String id, String secret) {
        return StaticCredentialsProvider.create(AwsBasicCredentials.create(id, secret));
    }

    /** The HTTP client under the SDK, changing {@code from} to {@code to} in the body the SDK has just signed. */
    record ChangingBodyAfterSigning(SdkHttpClient delegate, String from, String to) implements SdkHttpClient {

        @Override
        public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
            byte[] body = request.contentStreamProvider().map(p -> {
                try (InputStream in = p.newStream()) {
                    return in.readAllBytes();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).orElse(new byte[0]);
            byte[] changed = new String(body, StandardCharsets.ISO_8859_1).replace(from, to)
                    .getBytes(StandardCharsets.ISO_8859_1);
            assertFalse(java.util.Arrays.equals(body, changed), "the body holds " + from);
            return delegate.prepareRequest(HttpExecuteRequest.builder().request(request.httpRequest())
                    .contentStreamProvider(() -> new ByteArrayInputStream(changed)).build());
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
