package io.streamtables.ingest;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.net.URI;
import java.util.Optional;

/** The Kinesis client, configured with the key names of the Quarkiverse S3 extension under {@code delivery.kinesis}. */
@ConfigMapping(prefix = "delivery.kinesis")
public interface KinesisConfig {

    /** A Kinesis-compatible endpoint such as kinesis-local; unset reaches AWS. */
    Optional<URI> endpointOverride();

    /** GetRecords {@code Limit}: at most 10 000; lower it for slow Kinesis emulators to get smaller, faster chunks. */
    @WithDefault("10000")
    int maxRecordsPerCall();

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
