package io.streamtables.config;

import io.quarkus.arc.Unremovable;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * What one account may create, as AWS sets quotas per account and Region (the registry's defaults are AWS Glue's):
 * a tenant cannot grow the tables every stage reads, or the registry every lookup searches, without bound. Past a
 * quota, the API answers {@code LimitExceededException} (channels) or {@code ResourceNumberLimitExceededException}
 * (the registry), naming the setting.
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
}
