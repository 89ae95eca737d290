package io.streamtables.config;

import io.quarkus.arc.Unremovable;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/**
 * Settings of ingest-service's shard leases (docs/OPERATING.md "Distributed mode") and readers. Known to every stage so
 * that one configuration serves all of them: an unknown {@code delivery.*} key fails a service's start-up.
 */
@Unremovable
@ConfigMapping(prefix = "delivery.ingest")
public interface IngestConfig {

    /**
     * How long a shard lease lasts without renewal; renewed every third of it. A dead instance's shards are read
     * again by the others after at most this plus one listing of the stream (2 s). Hosts' clocks must agree to
     * well within a fifth of it.
     */
    @WithDefault("10s")
    Duration leaseDuration();

    /**
     * A shard reader whose last chunk is not in the table twice the channel's freshness interval plus this after
     * it was handed on reads again after the table's watermark (a commit instance died holding it, or dropped it
     * with its buffer after a failure, and the shard receives nothing more that would reveal the gap).
     */
    @WithDefault("60s")
    Duration redeliveryGrace();

    /**
     * The threads that read the shards this instance holds, however many: at most this many GetRecords calls, each
     * with the handing on of its answer, run at once. An idle shard holds none between its calls; a busy one holds
     * one for each call and its chunks, so a hundred busy shards read at their full 5 calls a second need about
     * that many times the length of a call and its handing on in threads (20 ms each: 10).
     */
    @WithDefault("32")
    int readerThreads();
}
