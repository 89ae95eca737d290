package io.streamtables.bus;

/**
 * Identifies one chunk of one shard end to end (ARCHITECTURE "Exactly-once"). Kinesis sequence numbers
 * grow within a shard, so a shard's progress is one number and a replayed chunk is recognised by its range.
 *
 * @param streamArn the stream the shard is one of: a channel created again on another stream reads shards of the
 *     same ids, whose sequence numbers are not the first stream's (null in a chunk of an earlier release: the
 *     channel's stream)
 * @param previousSequence the sequence number the reader resumed after: the previous chunk's last, the
 *     committed watermark, or null when the shard is read from the channel's activation. It lets the commit
 *     stage see a gap (a chunk it never received) and ask for a rewind instead of skipping records.
 */
public record CommitToken(String channelArn, String streamArn, String shardId, String previousSequence,
        String firstSequence, String lastSequence) {

    /** The bus key: one shard's chunks stay in order and reach one commit instance at a time. */
    public String key() {
        return channelArn + "/" + shardId;
    }
}
