package io.streamtables.config;

import io.quarkus.arc.Unremovable;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Limits on one record (README "Limits"). Known to every stage so that one configuration serves all of them: an
 * unknown {@code delivery.*} key fails a service's start-up.
 */
@Unremovable
@ConfigMapping(prefix = "delivery.records")
public interface RecordsConfig {

    /**
     * The largest record delivered, in bytes (larger ones are dead-lettered as RECORD_TOO_LARGE), also the most a
     * compressed GSR body may inflate to and the longest text the parser reads. Kinesis' own limit: 10 MiB.
     */
    @WithDefault("10485760")
    int maxBytes();
}
