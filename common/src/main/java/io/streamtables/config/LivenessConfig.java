package io.streamtables.config;

import io.quarkus.arc.Unremovable;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** When a service is not alive though it answers ({@code io.streamtables.health.RepeatingTasksLiveness}). */
@Unremovable // registered in every service: one configuration file serves all of them
@ConfigMapping(prefix = "delivery.liveness")
public interface LivenessConfig {

    /** The longest one run of a repeating task (the commit tick, the reading of the channels) may last. */
    @WithDefault("5m")
    Duration taskTimeout();
}
