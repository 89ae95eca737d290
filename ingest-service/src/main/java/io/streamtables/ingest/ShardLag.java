package io.streamtables.ingest;

/** Where a shard reader reports how far it is behind the stream's tip; negative once it stops reading. */
@FunctionalInterface
interface ShardLag {
    void behind(String channelArn, String shardId, long millis);
}
