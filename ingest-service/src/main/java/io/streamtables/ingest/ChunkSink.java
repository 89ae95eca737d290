package io.streamtables.ingest;

import io.streamtables.bus.RecordChunk;

/** Where a shard reader hands its chunks; returns once the next stage has taken the chunk. */
@FunctionalInterface
interface ChunkSink {
    /**
     * @throws io.streamtables.bus.RewindException when the shard must be read again from an earlier point
     */
    void publish(RecordChunk chunk) throws InterruptedException;
}
