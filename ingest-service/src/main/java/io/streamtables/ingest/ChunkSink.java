package io.streamtables.ingest;

import io.streamtables.bus.RecordChunk;
import java.util.function.BooleanSupplier;

/**
 * Where a shard reader hands its chunks; returns once the next stage has taken the chunk, or gives up when
 * {@code wanted} turns false (the reader lost its lease, say).
 */
@FunctionalInterface
interface ChunkSink {
    void publish(RecordChunk chunk, BooleanSupplier wanted) throws InterruptedException;
}
