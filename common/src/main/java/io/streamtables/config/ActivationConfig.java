package io.streamtables.config;

import io.quarkus.arc.Unremovable;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** How long a CREATING channel's checks may go without an answer before it is FAILED (the control plane's {@code ChannelActivation}). */
@Unremovable // registered in every service: one configuration file serves all of them
@ConfigMapping(prefix = "delivery.activation")
public interface ActivationConfig {

    @WithDefault("10m")
    Duration timeout();
}
