package io.streamtables.config;

import io.quarkus.arc.Unremovable;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * The KMS client the control plane asks (DescribeKey, as the channel's role) whether a key named by its ARN, the
 * source stream's or the destination's, is an AWS managed key, which a delivery cannot use (SPEC E2).
 */
@Unremovable // registered in every service: one configuration file serves all of them
@ConfigMapping(prefix = "delivery.kms")
public interface KmsConfig extends AwsClientConfig {

    /** Off where no KMS answers (kinesis-local and an S3-compatible store): only the alias form is then refused. */
    @WithDefault("true")
    boolean describeKeys();
}
