package io.streamtables.commit;

import io.streamtables.config.CommitConfig;

/**
 * How much one channel's open buffer may hold (docs/OPERATING.md "Limits"). A buffer at a limit is cut at the next tick
 * and takes no more chunks until then: the stage holds them, which holds back the readers (backpressure).
 *
 * @param lanes Parquet writer lanes (one per core, at most 4)
 * @param maxDeadLetterBatchBytes the most one batch of dead letters takes on the bus
 * @param maxOpenPartitions partitions with an open Parquet writer: producers choose the partition through the
 *     event time, and each writer holds about its page size in buffers (1.2 MB at Parquet's 1 MB pages, measured); a
 *     chunk that alone spans more is written one partition at a time
 * @param maxRecords rows and rejects buffered; rejects pile up in memory while commits fail
 * @param bytes the bytes every channel's open writers may hold together, shared by the buffers of one stage
 */
record BufferLimits(int lanes, int maxDeadLetterBatchBytes, int maxOpenPartitions, int maxRecords, BufferedBytes bytes) {

    /** Writer lanes by default: one per core, at most 4. */
    static final int DEFAULT_LANES = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));

    /** As the settings default. */
    static final BufferLimits DEFAULT = new BufferLimits(DEFAULT_LANES, 512 * 1024, 100, 500_000,
            BufferedBytes.quarterOfHeap());

    static BufferLimits of(CommitConfig config) {
        return new BufferLimits(DEFAULT_LANES, config.maxDeadLetterBatchBytes(), config.maxOpenPartitions(),
                config.maxBufferedRecords(), config.maxBufferedBytes().map(size -> new BufferedBytes(size.asLongValue()))
                        .orElseGet(BufferedBytes::quarterOfHeap));
    }

    BufferLimits withLanes(int n) {
        return new BufferLimits(n, maxDeadLetterBatchBytes, maxOpenPartitions, maxRecords, bytes);
    }
}
