package io.streamtables.schema;

import io.quarkus.arc.Unremovable;
import io.quarkus.runtime.configuration.DurationConverter;
import io.quarkus.runtime.configuration.MemorySize;
import io.quarkus.runtime.configuration.MemorySizeConverter;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithConverter;
import io.smallrye.config.WithDefault;
import io.streamtables.config.AwsClientConfig;
import java.time.Duration;
import java.util.Optional;

/**
 * The Glue Schema Registry client under {@code delivery.schema-registry}: AWS Glue when no endpoint is set,
 * or any Glue-compatible registry, such as the one the control plane serves.
 */
@Unremovable // registered in every service: one configuration file serves all of them
@ConfigMapping(prefix = "delivery.schema-registry")
public interface SchemaRegistryConfig extends AwsClientConfig {

    /** {@code glue} (the Glue API) or {@code local} (files under {@code delivery.schemas-dir}). */
    @WithDefault("glue")
    String source();

    /**
     * Whether lookups sign as the channel's role when {@code delivery.auth.assume-role} is on. By default only when
     * the registry is AWS Glue itself (no endpoint-override): a Glue-compatible registry such as ours knows the
     * service's lookup key, not the sessions of the channels' roles.
     */
    Optional<Boolean> assumeChannelRole();

    /**
     * How long a channel tagged {@code delivery:schema-version=LATEST} keeps decoding with the latest version it
     * found before it asks the registry again.
     */
    @WithDefault("60s")
    @WithConverter(DurationConverter.class) // "60s" outside Quarkus too (the tests' plain SmallRye configs)
    Duration latestRefresh();

    /**
     * Whether the registry {@code endpoint-override} names is the one this service serves (the control plane and
     * the all-in-one read it in process then, rather than calling themselves over HTTP). Unset: when the endpoint is a
     * loopback address on this service's port. The deployment files name the control plane's service, and set it.
     */
    Optional<Boolean> servedHere();

    /**
     * The most schema versions each cache of a stage holds (the registry's answers, the channels' mapped versions,
     * the convert stage's compiled decoders). Above the default versions-per-schema quota, so one schema's versions
     * always fit.
     */
    @WithDefault("2000")
    int cacheVersions();

    /** The most memory each cache of schema versions takes, estimated from the definitions' sizes. */
    @WithDefault("64M")
    @WithConverter(MemorySizeConverter.class)
    MemorySize cacheBytes();

    /**
     * How many version ids the registry does not hold a channel's GSR_JSON records may have the convert stage look up
     * in a second; once they are spent, a record naming a version the stage has not met is a dead letter until the
     * second ends. A lookup holds the stage's other channels' chunks while it waits, and a producer can name a new
     * random version id in every record; versions the registry holds spend none.
     */
    @WithDefault("10")
    int missesPerChannel();

    default boolean signsAsChannelRole() {
        return assumeChannelRole().orElse(endpointOverride().isEmpty());
    }
}
