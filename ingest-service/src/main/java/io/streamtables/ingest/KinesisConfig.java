package io.streamtables.ingest;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.streamtables.config.AwsClientConfig;

/** The Kinesis client, configured with the key names of the Quarkiverse S3 extension under {@code delivery.kinesis}. */
@ConfigMapping(prefix = "delivery.kinesis")
public interface KinesisConfig extends AwsClientConfig {

    /** GetRecords {@code Limit}: at most 10 000; lower it for slow Kinesis emulators to get smaller, faster chunks. */
    @WithDefault("10000")
    int maxRecordsPerCall();
}
