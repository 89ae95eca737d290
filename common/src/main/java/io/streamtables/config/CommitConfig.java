package io.streamtables.config;

import io.quarkus.arc.Unremovable;
import io.quarkus.runtime.configuration.MemorySize;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

/**
 * Settings of commit-service (docs/OPERATING.md "Configuration"). Known to every stage so that one configuration serves
 * all of them: an unknown {@code delivery.*} key fails a service's start-up.
 */
@Unremovable
@ConfigMapping(prefix = "delivery.commit")
public interface CommitConfig {

    /**
     * The most one batch of dead letters takes on the bus: a shard's rejects of one commit are cut into batches (and
     * DLQ objects) of this size, below the broker's message limit (Kafka's default is 1 MiB).
     */
    @WithDefault("524288")
    int maxDeadLetterBatchBytes();

    /**
     * Partitions of one channel with an open Parquet writer: past it, the buffer is committed early. Producers choose
     * the partition through the event time; each open writer holds about the table's Parquet page size in buffers
     * (1.2 MB at the default 1 MB pages).
     */
    @WithDefault("100")
    int maxOpenPartitions();

    /**
     * Rows and rejects one channel buffers: past it, the buffer is committed early, and while a commit fails no more
     * chunks are taken (the readers wait) instead of piling up in memory.
     */
    @WithDefault("500000")
    int maxBufferedRecords();

    /**
     * The bytes the stage's open Parquet writers may hold, every channel together (a writer keeps its row group's
     * pages in memory until its file closes): a chunk past it waits for its buffer's cut, as past the other limits.
     * Unset: a quarter of the heap.
     */
    Optional<MemorySize> maxBufferedBytes();

    /**
     * The threads that cut and commit the channels' buffers: the channels commit side by side, each one commit at a
     * time. A commit mostly waits for the catalog and the object store.
     */
    @WithDefault("4")
    int threads();

    /**
     * On SIGTERM, how long the stage may take to commit what it buffered; keep it below the container's grace period
     * (Kubernetes' default is 30 s). What is not committed by then is read again after the restart.
     */
    @WithDefault("20s")
    Duration shutdownTimeout();
}
