package io.streamtables.config;

import io.quarkus.arc.Unremovable;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/**
 * CloudWatch for users on AWS (SPEC C7), each half off by default: the {@code DataFreshness} metric of every
 * channel, and the delivery log shipped to each channel's {@code LoggingConfiguration} log group and stream.
 */
@Unremovable // registered in every service: one configuration file serves all of them
@ConfigMapping(prefix = "delivery.cloudwatch")
public interface CloudWatchConfig {

    Metrics metrics();

    Logs logs();

    /** PutMetricData with the service's own credentials (the client settings of {@link AwsClientConfig}). */
    interface Metrics extends AwsClientConfig {
        @WithDefault("false")
        boolean enabled();

        /** Custom metrics cannot go under {@code AWS/}: the managed feature's namespace is AWS's own. */
        @WithDefault("StreamTables/DataChannel")
        String namespace();

        /** How often each channel's freshness is sent (CloudWatch's standard resolution is a minute). */
        @WithDefault("60s")
        Duration interval();
    }

    /** PutLogEvents as each channel's ServiceExecutionRoleARN, as the managed feature writes them. */
    interface Logs extends AwsClientConfig {
        @WithDefault("false")
        boolean enabled();

        /** How often the lines waiting are sent. */
        @WithDefault("5s")
        Duration interval();

        /**
         * Lines waiting to be sent, all channels together; past it the oldest line of the target holding the most is
         * dropped (and counted), so a target that keeps refusing loses its own lines, not the others'.
         */
        @WithDefault("10000")
        int maxQueued();
    }
}
