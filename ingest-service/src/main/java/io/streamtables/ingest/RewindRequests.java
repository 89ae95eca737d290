package io.streamtables.ingest;

import io.streamtables.bus.RewindRequest;
import io.streamtables.bus.Topics;
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

    /** Read again after {@code resumeAfter}; null: from the channel's activation. */
    record Rewind(String resumeAfter) {
    }

    private final Map<String, Rewind> pending = new ConcurrentHashMap<>();

    @Incoming(Topics.REWINDS)
    public void received(RewindRequest request) {
        pending.put(request.refused().key(), new Rewind(request.resumeAfter()));
    }

    /** A rewind asked by this instance itself (a chunk handed on long ago and still not in the table). */
    void ask(String shardKey, String resumeAfter) {
        pending.put(shardKey, new Rewind(resumeAfter));
    }

    /** The rewind waiting for this shard, removed, or null. */
    Rewind take(String shardKey) {
        return pending.remove(shardKey);
    }

    boolean waiting(String shardKey) {
        return pending.containsKey(shardKey);
    }
}
