package io.streamtables.config;

import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.net.URI;
import java.util.Optional;

/**
 * An AWS SDK client's settings, with the key names of the Quarkiverse extensions
 * ({@code endpoint-override}, {@code aws.region}, {@code aws.credentials.type}, ...).
 */
public interface AwsClientConfig {

    /** An AWS-compatible endpoint (kinesis-local, our own registry, ...); unset reaches AWS. */
    Optional<URI> endpointOverride();

    Aws aws();

    interface Aws {
        /** Region of the client; defaults to {@code delivery.region}. */
        Optional<String> region();

        Credentials credentials();
    }

    interface Credentials {
        /** {@code default} (the AWS default chain) or {@code static}. */
        @WithDefault("default")
        String type();

        @WithName("static-provider")
        StaticProvider staticProvider();
    }

    interface StaticProvider {
        Optional<String> accessKeyId();

        Optional<String> secretAccessKey();
    }
}
