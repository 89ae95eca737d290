package io.streamtables.config;

import io.quarkus.arc.Unremovable;
import io.quarkus.runtime.configuration.MemorySize;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/**
 * What one request may cost the API port beyond Quarkus's own limits ({@code quarkus.http.limits.*}): README
 * "Configuration", docs/DESIGN.md "What one caller or tenant can cost the others".
 */
@Unremovable // registered in every service: one configuration file serves all of them
@ConfigMapping(prefix = "delivery.api")
public interface ApiLimits {

    /**
     * The time a request has to arrive whole, from its headers to its body's last byte: a slower one is answered
     * 408 and its connection closed, so a trickle cannot hold a body buffer.
     */
    @WithDefault("20s")
    Duration requestDeadline();

    /**
     * The bytes the bodies of requests under way may hold in memory together, counted by their declared length (the
     * largest body, {@code quarkus.http.limits.max-body-size}, when none is declared). A request past it is answered
     * 503, which the SDKs retry.
     */
    @WithDefault("64M")
    MemorySize bodyBudget();
}
