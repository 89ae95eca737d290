package io.streamtables.auth;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/** Requests the SDK cannot send (a misspelt member, a hostile body), signed by the SDK's own signer all the same. */
public final class TestSigning {

    public static final AwsCredentialsIdentity TESTER = AwsCredentialsIdentity.create("test", "test");

    private TestSigning() {
    }

    /** {@code request} with the SigV4 headers the SDK's clients add, signed at the clock's time in us-east-1. */
    static SdkHttpRequest sign(SdkHttpRequest request, byte[] body, String service, AwsCredentialsIdentity identity,
            Clock clock) {
        return AwsV4HttpSigner.create().sign(r -> r.identity(identity).request(request)
                .payload(ContentStreamProvider.fromByteArray(body))
                .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
                .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, service)
                .putProperty(HttpSigner.SIGNING_CLOCK, clock)).request();
    }

    /** A POST of {@code body} to the AWS JSON API at {@code endpoint}, signed by the test principal. */
    public static HttpRequest signedPost(URI endpoint, String target, String contentType, String body) {
        return signedPost(endpoint, target, contentType, body.getBytes(StandardCharsets.UTF_8));
    }

    /** A POST of any bytes, any content type (none when null) and any target, signed by the test principal. */
    public static HttpRequest signedPost(URI endpoint, String target, String contentType, byte[] bytes) {
        SdkHttpRequest unsigned = SdkHttpRequest.builder().method(SdkHttpMethod.POST).uri(endpoint)
                .applyMutation(b -> {
                    if (contentType != null) {
                        b.putHeader("Content-Type", contentType);
                    }
                }).putHeader("X-Amz-Target", target).build();
        String service = target.startsWith("AWSGlue.") ? "glue" : "kinesis";
        SdkHttpRequest signed = sign(unsigned, bytes, service, TESTER, Clock.systemUTC());
        HttpRequest.Builder out = HttpRequest.newBuilder(endpoint).POST(HttpRequest.BodyPublishers.ofByteArray(bytes));
        // java.net.http sets Host itself, from the same URI
        signed.headers().forEach((name, values) -> {
            if (!name.equalsIgnoreCase("Host")) {
                values.forEach(v -> out.header(name, v));
            }
        });
        return out.build();
    }
}
