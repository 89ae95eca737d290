package io.streamtables.config;

import io.quarkus.arc.Unremovable;
import io.smallrye.config.ConfigMapping;
import java.util.List;
import java.util.Optional;

/** Who the management port answers ({@code io.streamtables.management.ManagementHosts}). */
@Unremovable // registered in every service: one configuration file serves all of them
@ConfigMapping(prefix = "delivery.management")
public interface ManagementPortConfig {

    /**
     * The names operators and scrapers reach the management port by (host names, no port), besides its addresses
     * and {@code localhost}: a request that names any other host is refused, since a name can be made to resolve to
     * this machine by whoever owns it.
     */
    Optional<List<String>> hostNames();
}
