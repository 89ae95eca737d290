package io.streamtables.config;

import io.quarkus.arc.Unremovable;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Limits on one record (docs/OPERATING.md "Limits"). Known to every stage so that one configuration serves all of them:
 * an unknown {@code delivery.*} key fails a service's start-up.
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

    /**
     * Whether the convert stage compiles each channel's schema into a decoder that validates while it parses. The
     * reference validator decides every record the fast path is not sure of, so the results are the same; false keeps
     * the reference alone (slower).
     */
    @WithDefault("true")
    boolean compiledDecoder();
}
