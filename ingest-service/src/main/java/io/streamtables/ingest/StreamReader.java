package io.streamtables.ingest;

import io.streamtables.bus.CommitToken;
import io.streamtables.bus.Sequences;
import io.streamtables.channel.Channel;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.function.BooleanSupplier;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ListShardsRequest;
import software.amazon.awssdk.services.kinesis.model.ListShardsResponse;
import software.amazon.awssdk.services.kinesis.model.Shard;

/**
 * Follows a channel's stream: lists its shards, reads each one with a {@link ShardReader}, and starts a
 * child shard (after a split or merge) only once its parents are read to their end and delivered (SPEC S1).
 */
final class StreamReader implements Runnable {

    private static final Logger LOG = Logger.getLogger(StreamReader.class);
    static final long LIST_INTERVAL_MS = 2_000;
    static final long DELIVERY_POLL_MS = 500;

    private final KinesisClient kinesis;
    private final Channel channel;
    private final Instant activatedAt;
    private final CommittedWatermarks watermarks;
    private final ChunkSink sink;
    private final RewindRequests rewinds;
    private final ExecutorService shardThreads;
    private final BooleanSupplier running;
    private final int maxRecordsPerCall;
    private final Set<String> started = ConcurrentHashMap.newKeySet();
    private final Set<String> finished = ConcurrentHashMap.newKeySet();

    StreamReader(KinesisClient kinesis, Channel channel, Instant activatedAt, CommittedWatermarks watermarks,
            ChunkSink sink, RewindRequests rewinds, ExecutorService shardThreads, BooleanSupplier running, int maxRecordsPerCall) {
        this.kinesis = kinesis;
        this.maxRecordsPerCall = maxRecordsPerCall;
        this.channel = channel;
        this.activatedAt = activatedAt;
        this.watermarks = watermarks;
        this.sink = sink;
        this.rewinds = rewinds;
        this.shardThreads = shardThreads;
        this.running = running;
    }

    @Override
    public void run() {
        long backoff = 1_000;
        while (running.getAsBoolean()) {
            try {
                startReadyShards(listShards());
                backoff = 1_000;
                Thread.sleep(LIST_INTERVAL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (SdkException e) {
                LOG.warnf("Listing the shards of %s failed, retrying in %d ms: %s", channel.streamArn(), backoff,
                        e.getMessage());
                sleep(backoff);
                backoff = Math.min(backoff * 2, 30_000);
            }
        }
    }

    private List<Shard> listShards() {
        List<Shard> shards = new ArrayList<>();
        String next = null;
        do {
            ListShardsRequest.Builder request = ListShardsRequest.builder();
            if (next == null) {
                request.streamARN(channel.streamArn().toString());
            } else {
                request.nextToken(next);
            }
            ListShardsResponse response = kinesis.listShards(request.build());
            shards.addAll(response.shards());
            next = response.nextToken();
        } while (next != null);
        return shards;
    }

    private void startReadyShards(List<Shard> shards) {
        Set<String> listed = ConcurrentHashMap.newKeySet();
        shards.forEach(s -> listed.add(s.shardId()));
        Map<String, String> committed = null;
        for (Shard shard : shards) {
            if (started.contains(shard.shardId()) || !parentDone(shard.parentShardId(), listed)
                    || !parentDone(shard.adjacentParentShardId(), listed)) {
                continue;
            }
            if (committed == null) {
                committed = watermarks.of(channel);
            }
            String watermark = committed.get(shard.shardId());
            started.add(shard.shardId());
            shardThreads.submit(() -> readShard(shard.shardId(), watermark));
        }
    }

    /** A parent that is no longer listed has aged out of the stream and holds nothing to deliver. */
    private boolean parentDone(String parent, Set<String> listed) {
        return parent == null || finished.contains(parent) || !listed.contains(parent);
    }

    private void readShard(String shardId, String watermark) {
        Thread.currentThread().setName("shard-" + channel.name() + "-" + shardId);
        ShardReader reader = new ShardReader(kinesis, channel, shardId, watermark, activatedAt, sink, rewinds, running,
                maxRecordsPerCall);
        try {
            LOG.debugf("Reading %s of %s after %s", shardId, channel.streamArn(),
                    watermark == null ? "activation at " + activatedAt : watermark);
            while (reader.read()) {
                if (awaitDelivered(shardId, reader.lastPublished())) {
                    finished.add(shardId);
                    LOG.infof("Shard %s of %s is closed and delivered", shardId, channel.streamArn());
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.errorf(e, "Reader of shard %s stopped; it restarts at the next listing", shardId);
            started.remove(shardId);
        }
    }

    /**
     * Children keep per-key order only when the parent's last record is committed before they start.
     *
     * @return true when delivered; false when stopped, or when the commit stage asked for a rewind (over Kafka
     *     it may refuse a chunk after the reader reached the shard's end), which the reader takes next
     */
    private boolean awaitDelivered(String shardId, String lastPublished) throws InterruptedException {
        String shardKey = new CommitToken(channel.arn(), shardId, null, null, null).key();
        if (lastPublished == null) {
            return running.getAsBoolean();
        }
        while (running.getAsBoolean() && !rewinds.waiting(shardKey)) {
            try {
                if (Sequences.atOrBelow(lastPublished, watermarks.of(channel).get(shardId))) {
                    return true;
                }
            } catch (RuntimeException e) {
                LOG.debugf("Cannot read watermarks yet: %s", e.getMessage());
            }
            Thread.sleep(DELIVERY_POLL_MS);
        }
        return false;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
