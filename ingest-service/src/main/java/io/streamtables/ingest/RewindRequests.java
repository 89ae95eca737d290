package io.streamtables.ingest;

import io.streamtables.bus.RewindRequest;
import io.streamtables.bus.Topics;
import io.streamtables.channel.Channel;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.reactive.messaging.Incoming;

/**
 * Rewinds asked by the commit stage over the bus, waiting for the shard's reader to take them. Requests for one shard
 * coalesce: the reader re-reads once, from the latest point asked (they arrive in order, keyed by shard).
 */
@ApplicationScoped
public class RewindRequests {

    /**
     * Read the stream's shard again after {@code resumeAfter}; null: from the channel's activation. A null stream is
     * the reader's own (a request of an earlier release names none).
     */
    record Rewind(String streamArn, String resumeAfter) {
    }

    private final Map<String, Rewind> pending = new ConcurrentHashMap<>();

    @Incoming(Topics.REWINDS)
    public void received(RewindRequest request) {
        pending.put(request.refused().key(), new Rewind(request.refused().streamArn(), request.resumeAfter()));
    }

    /** A rewind asked by this instance itself (a chunk handed on long ago and still not in the table). */
    void ask(String shardKey, String resumeAfter) {
        pending.put(shardKey, new Rewind(null, resumeAfter));
    }

    /**
     * The rewind waiting for this shard of the channel's stream, removed, or null. One of another stream's shard of
     * the same id (the channel read it before it was deleted and created again) is dropped: its position is not in
     * this stream.
     */
    Rewind take(String shardKey, Channel channel) {
        Rewind asked = pending.remove(shardKey);
        return asked == null || channel.reads(asked.streamArn()) ? asked : null;
    }

    boolean waiting(String shardKey, Channel channel) {
        Rewind asked = pending.get(shardKey);
        return asked != null && channel.reads(asked.streamArn());
    }
}
