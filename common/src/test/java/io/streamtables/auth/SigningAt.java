package io.streamtables.auth;

import java.time.Clock;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.http.auth.aws.scheme.AwsV4AuthScheme;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.scheme.AuthScheme;
import software.amazon.awssdk.http.auth.spi.signer.AsyncSignRequest;
import software.amazon.awssdk.http.auth.spi.signer.AsyncSignedRequest;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignRequest;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;
import software.amazon.awssdk.identity.spi.IdentityProviders;

/** SigV4 as the SDK's clients sign it, with the SDK's signer, on a clock of the test's choosing (an old date). */
public record SigningAt(Clock clock) implements AuthScheme<AwsCredentialsIdentity> {

    @Override
    public String schemeId() {
        return AwsV4AuthScheme.SCHEME_ID;
    }

    @Override
    public IdentityProvider<AwsCredentialsIdentity> identityProvider(IdentityProviders providers) {
        return providers.identityProvider(AwsCredentialsIdentity.class);
    }

    @Override
    public HttpSigner<AwsCredentialsIdentity> signer() {
        AwsV4HttpSigner signer = AwsV4HttpSigner.create();
        return new HttpSigner<>() {
            @Override
            public SignedRequest sign(SignRequest<? extends AwsCredentialsIdentity> request) {
                return signer.sign(request.copy(r -> r.putProperty(HttpSigner.SIGNING_CLOCK, clock)));
            }

            @Override
            public CompletableFuture<AsyncSignedRequest> signAsync(
                    AsyncSignRequest<? extends AwsCredentialsIdentity> request) {
                return signer.signAsync(request.copy(r -> r.putProperty(HttpSigner.SIGNING_CLOCK, clock)));
            }
        };
    }
}
