package io.streamtables.schema;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.streamtables.config.AwsClientConfig;

/**
 * The Glue Schema Registry client under {@code delivery.schema-registry}: AWS Glue when no endpoint is set,
 * or any Glue-compatible registry, such as the one ingest-service serves.
 */
@ConfigMapping(prefix = "delivery.schema-registry")
public interface SchemaRegistryConfig extends AwsClientConfig {

    /** {@code glue} (the Glue API) or {@code local} (files under {@code delivery.schemas-dir}). */
    @WithDefault("glue")
    String source();
}
