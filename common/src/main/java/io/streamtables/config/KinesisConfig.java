package io.streamtables.config;

import io.quarkus.arc.Unremovable;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * The Kinesis client of ingest-service, configured with the key names of the Quarkiverse S3 extension under
 * {@code delivery.kinesis}. Known to every stage so that one configuration serves all of them (the distributed
 * mode): an unknown {@code delivery.*} key fails a service's start-up.
 */
@Unremovable // registered in every stage, whether it injects it or not
@ConfigMapping(prefix = "delivery.kinesis")
public interface KinesisConfig extends AwsClientConfig {

    /** GetRecords {@code Limit}: at most 10 000; lower it for slow Kinesis emulators to get smaller, faster chunks. */
    @WithDefault("10000")
    int maxRecordsPerCall();
}
