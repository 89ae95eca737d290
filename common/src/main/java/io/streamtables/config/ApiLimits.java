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
     * The least rate at which a body must arrive, on average since its headers, once {@link #minBodyRateGrace} has
     * passed: a slower one is answered 408 and its connection closed.
     */
    @WithDefault("16K")
    MemorySize minBodyRate();

    /** How long a body may take to start arriving before {@link #minBodyRate} applies. */
    @WithDefault("5s")
    Duration minBodyRateGrace();

    /**
     * The bytes of request bodies that have arrived and are not answered yet, together: a request whose body would
     * take more is answered 503, which the SDKs retry. What counts is what arrived, not what a request declares.
     */
    @WithDefault("64M")
    MemorySize bodyBudget();

    /**
     * The part of {@link #bodyBudget} the bodies signed with one access key may hold (every key that is no
     * principal's counts as one): a caller that knows a key id but not its secret holds at most this.
     */
    @WithDefault("16M")
    MemorySize bodyBudgetPerKey();

    /**
     * The part of {@link #bodyBudget} kept for the stages' own principal ({@code service}: their schema lookups),
     * which other callers' bodies never take.
     */
    @WithDefault("8M")
    MemorySize bodyBudgetServiceReserve();
}
