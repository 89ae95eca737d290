package io.streamtables.config;

import io.quarkus.arc.Unremovable;
import io.quarkus.runtime.configuration.MemorySize;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * What one account may create, as AWS sets quotas per account and Region (the registry's counts are AWS Glue's):
 * a tenant cannot grow the tables every stage reads, or the registry every lookup searches, without bound. Past a
 * quota, the API answers {@code LimitExceededException} (channels) or {@code ResourceNumberLimitExceededException}
 * (the registry), naming the setting. The registry checks its quotas in the transaction of the insert, so creates
 * at once, from any number of control planes, cannot pass them.
 */
@Unremovable // registered in every service: one configuration file serves all of them
@ConfigMapping(prefix = "delivery.quotas")
public interface QuotaConfig {

    /** Channels of one account, in any state until they are gone. */
    @WithDefault("100")
    int channelsPerAccount();

    /** Schema registries of one account. */
    @WithDefault("100")
    int registriesPerAccount();

    /** Schemas of one account, in all its registries. */
    @WithDefault("10000")
    int schemasPerAccount();

    /** Versions of one schema. */
    @WithDefault("1000")
    int versionsPerSchema();

    /**
     * The UTF-8 bytes of one account's stored schema definitions, every version of every schema. Not a Glue quota:
     * Glue keeps them on AWS, this service in its own database, where the counts alone would let one account store
     * 10 000 schemas of 1 000 versions of 170 000 characters (1.7 TB). 256 MiB is about 1 500 definitions of that
     * largest size, or 50 000 versions of a 5 KiB schema.
     */
    @WithDefault("256M")
    MemorySize definitionBytesPerAccount();
}
