package io.streamtables.ingest;

import io.streamtables.bus.Sequences;
import io.streamtables.channel.Channel;
import io.streamtables.config.Secrets;
import io.streamtables.tasks.Backoff;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import org.jboss.logging.Logger;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ListShardsRequest;
import software.amazon.awssdk.services.kinesis.model.ListShardsResponse;
import software.amazon.awssdk.services.kinesis.model.ResourceNotFoundException;
import software.amazon.awssdk.services.kinesis.model.Shard;

/**
 * Follows a channel's stream: lists its shards, takes this instance's share of their leases ({@link ShardLeases}),
 * reads each shard it holds with a {@link ShardReader}, and lets a child shard (after a split or merge) be taken
 * only once its parents are read to their end and delivered (SPEC S1). That a parent is finished is recorded in
 * the lease table, so a child may start on another instance than its parent's. A listing is a {@link #step}; the
 * shards are read by steps on a {@link ReaderPool}.
 */
final class StreamReader {

    private static final Logger LOG = Logger.getLogger(StreamReader.class);
    static final long LIST_INTERVAL_MS = 2_000;
    /**
     * How long a listing of the shards serves: they change only by resharding, which closes the shards it replaces,
     * so a reader that reaches the end of its shard has the stream listed again at once; the others see the new
     * shards within this. The leases are balanced at every {@link #LIST_INTERVAL_MS} all the same.
     */
    static final long RELIST_MS = 30_000;
    static final long DELIVERY_POLL_MS = 500;

    private final KinesisClient kinesis;
    private final AwsRequestOverrideConfiguration signAs;
    private final Channel channel;
    /** Where shards never read before start (StartPosition): a timestamp, or null for TRIM_HORIZON. */
    private final Instant startAt;
    private final CommittedWatermarks watermarks;
    private final ChunkSink sink;
    private final RewindRequests rewinds;
    private final ShardLeases leases;
    private final ReaderPool shardReads;
    private final BooleanSupplier running;
    private final int maxRecordsPerCall;
    private final ShardLag lag;
    private final IntSupplier freshnessSeconds;
    private final LongSupplier redeliverAfterMillis;
    private final Backoff backoff = new Backoff(1_000, 30_000);
    private List<Shard> shards;
    private long listedAt;
    /** A reader reached the end of its shard: list again (its children are new). */
    private volatile boolean shardEnded;
    /** The shards this instance reads now, by id. */
    private final Map<String, ReaderPool.Reader> readers = new ConcurrentHashMap<>();
    private final Map<String, ShardReader> shardReaders = new ConcurrentHashMap<>();

    /**
     * @param signAs what makes each Kinesis request sign as the channel's role, or null for the service's own
     */
    StreamReader(KinesisClient kinesis, AwsRequestOverrideConfiguration signAs, Channel channel, Instant startAt,
            CommittedWatermarks watermarks, ChunkSink sink, RewindRequests rewinds, ShardLeases leases,
            ReaderPool shardReads, BooleanSupplier running, int maxRecordsPerCall, ShardLag lag,
            IntSupplier freshnessSeconds, LongSupplier redeliverAfterMillis) {
        this.kinesis = kinesis;
        this.signAs = signAs;
        this.redeliverAfterMillis = redeliverAfterMillis;
        this.freshnessSeconds = freshnessSeconds;
        this.lag = lag;
        this.maxRecordsPerCall = maxRecordsPerCall;
        this.channel = channel;
        this.startAt = startAt;
        this.watermarks = watermarks;
        this.sink = sink;
        this.rewinds = rewinds;
        this.leases = leases;
        this.shardReads = shardReads;
        this.running = running;
    }

    /** The stream is gone: retrying cannot help, the channel fails (SPEC C4). */
    static final class StreamDeletedException extends RuntimeException {
        StreamDeletedException(String message) {
            super(message);
        }
    }

    /**
     * Lists the shards, reads those this instance holds and asks for what the table did not take.
     *
     * @return the milliseconds until the next listing, or {@link ReaderPool#DONE} once stopped
     * @throws StreamDeletedException when the stream no longer exists
     */
    long step() {
        if (!running.getAsBoolean()) {
            return ReaderPool.DONE;
        }
        try {
            readShardsHeld(shards());
            redeliverUncommitted();
            backoff.reset();
            return LIST_INTERVAL_MS;
        } catch (ResourceNotFoundException e) {
            throw new StreamDeletedException("StreamARN " + channel.streamArn() + " no longer exists (it was "
                    + "deleted): delivery stopped, what was delivered stays in the table; delete the channel");
        } catch (SdkException | IllegalStateException e) { // Kinesis or the service database
            long wait = backoff.next();
            LOG.warnf("Listing the shards of %s or taking their leases failed, retrying in %d ms: %s",
                    channel.streamArn(), wait, e.getMessage());
            return wait;
        }
    }

    /** Stops reading the shards; their leases: released by the caller, or left to expire. */
    void stop() {
        readers.values().forEach(ReaderPool.Reader::cancel);
    }

    private List<Shard> shards() {
        long now = System.currentTimeMillis();
        if (shards == null || shardEnded || now - listedAt >= RELIST_MS) {
            shardEnded = false;
            shards = listShards();
            listedAt = now;
        }
        return shards;
    }

    private List<Shard> listShards() {
        List<Shard> shards = new ArrayList<>();
        String next = null;
        do {
            ListShardsRequest.Builder request = ListShardsRequest.builder().overrideConfiguration(signAs);
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

    /**
     * A shard is ready when it is not finished and its parents are; of the ready shards, this instance reads those
     * whose lease it holds after balancing, and gives up those no longer ready (finished elsewhere, aged out).
     */
    private void readShardsHeld(List<Shard> shards) {
        Set<String> listed = new HashSet<>();
        shards.forEach(s -> listed.add(s.shardId()));
        Set<String> finished = new HashSet<>();
        leases.of(channel.arn()).values().forEach(l -> {
            if (l.finished()) {
                finished.add(l.shardId());
            }
        });
        List<String> ready = new ArrayList<>();
        for (Shard shard : shards) {
            if (!finished.contains(shard.shardId()) && parentDone(shard.parentShardId(), listed, finished)
                    && parentDone(shard.adjacentParentShardId(), listed, finished)) {
                ready.add(shard.shardId());
            }
        }
        Set<String> mine = leases.balance(channel.arn(), ready);
        for (String shardId : leases.held(channel.arn())) {
            if (!ready.contains(shardId)) {
                leases.release(channel.arn(), shardId);
            }
        }
        Map<String, String> committed = null;
        for (String shardId : ready) {
            ReaderPool.Reader reader = readers.get(shardId);
            if (!mine.contains(shardId) || (reader != null && !reader.isDone())) {
                continue;
            }
            if (committed == null) {
                committed = watermarks.of(channel);
            }
            readers.put(shardId, readShard(shardId, committed.get(shardId)));
        }
    }

    /**
     * A chunk that a commit instance held when it died (over Kafka its offset may be committed already), or that
     * a commit stage dropped with its buffer after a failure, is noticed by the commit stage only when the shard's
     * next chunk arrives (docs/DESIGN.md): a shard that receives nothing more would keep it unread. So a reader
     * whose last chunk is still above the table's watermark {@link #redeliverAfterMillis} after it was handed on
     * reads again after the watermark; what the table or a commit buffer already holds is dropped by sequence
     * number. A reader whose oldest chunk the table has not taken for that long pauses until it does
     * ({@link ShardReader#committed}): a stalled commit stage is not fed a stream's worth of chunks.
     */
    private void redeliverUncommitted() {
        long now = System.currentTimeMillis();
        long after = redeliverAfterMillis.getAsLong();
        if (shardReaders.values().stream().noneMatch(r -> r.paused() || r.oldestUncommittedAtMillis() > 0
                && now - r.oldestUncommittedAtMillis() > after)) {
            return; // nothing handed on waits for the table that long: no need to read it
        }
        Map<String, String> committed;
        try {
            committed = watermarks.of(channel);
        } catch (RuntimeException unreachable) { // the catalog: asked again after the next listing
            LOG.debugf("Cannot read the watermarks of %s: %s", channel.table(), Secrets.redact(unreachable.getMessage()));
            return;
        }
        for (Map.Entry<String, ShardReader> e : shardReaders.entrySet()) {
            ShardReader reader = e.getValue();
            String watermark = committed.get(e.getKey());
            reader.committed(watermark, now, after);
            String published = reader.lastPublished();
            if (published == null || now - reader.lastPublishedAtMillis() < after
                    || reader.rewindWaiting()) {
                continue;
            }
            if (!Sequences.atOrBelow(published, watermark)) {
                LOG.warnf("Shard %s of %s: the chunk up to %s was handed on %d s ago and the table holds only up to "
                        + "%s; reading again after it", e.getKey(), channel.streamArn(), published,
                        (now - reader.lastPublishedAtMillis()) / 1000, watermark == null ? "activation" : watermark);
                rewinds.ask(reader.shardKey(), watermark);
            }
        }
    }

    /** A parent that is no longer listed has aged out of the stream and holds nothing to deliver. */
    private static boolean parentDone(String parent, Set<String> listed, Set<String> finished) {
        return parent == null || finished.contains(parent) || !listed.contains(parent);
    }

    private ReaderPool.Reader readShard(String shardId, String watermark) {
        BooleanSupplier holding = () -> running.getAsBoolean() && leases.held(channel.arn(), shardId);
        ShardReader reader = new ShardReader(kinesis, signAs, channel, shardId, watermark, startAt, sink, rewinds, holding,
                maxRecordsPerCall, freshnessSeconds, lag);
        shardReaders.put(shardId, reader);
        LOG.infof("Reading %s of %s after %s (lease owner %s)", shardId, channel.streamArn(),
                watermark == null ? (startAt == null ? "TRIM_HORIZON" : "start at " + startAt) : watermark, leases.owner());
        return shardReads.start("Reader of shard " + shardId + " of " + channel.streamArn(),
                new ToTheEnd(shardId, reader, holding), () -> {
                    shardReaders.remove(shardId, reader);
                    lag.behind(channel.arn(), shardId, -1); // no longer read here
                });
    }

    /**
     * Reads a shard to its end, then waits until the table holds its last record: children keep per-key order only
     * when the parent's last record is committed before they start. The commit stage may ask for a rewind meanwhile
     * (it may refuse a chunk after the reader reached the shard's end): the reader takes it and reads on.
     */
    private final class ToTheEnd implements ReaderPool.Step {

        private final String shardId;
        private final ShardReader reader;
        private final BooleanSupplier holding;
        private boolean atEnd;

        ToTheEnd(String shardId, ShardReader reader, BooleanSupplier holding) {
            this.shardId = shardId;
            this.reader = reader;
            this.holding = holding;
        }

        @Override
        public long run() throws InterruptedException {
            if (!atEnd) {
                long next = reader.step();
                if (next != ShardReader.END) {
                    return next >= 0 ? next : stopped();
                }
                atEnd = true;
                shardEnded = true;
            }
            if (!holding.getAsBoolean()) {
                return stopped();
            }
            if (reader.rewindWaiting()) {
                atEnd = false;
                return 0;
            }
            if (!delivered(reader.lastPublished())) {
                return DELIVERY_POLL_MS;
            }
            leases.finish(channel.arn(), shardId);
            LOG.infof("Shard %s of %s is closed and delivered", shardId, channel.streamArn());
            return ReaderPool.DONE;
        }

        private boolean delivered(String lastPublished) {
            if (lastPublished == null) {
                return true;
            }
            try {
                return Sequences.atOrBelow(lastPublished, watermarks.of(channel).get(shardId));
            } catch (RuntimeException e) {
                LOG.debugf("Cannot read watermarks yet: %s", Secrets.redact(e.getMessage()));
                return false;
            }
        }

        private long stopped() {
            if (running.getAsBoolean()) {
                LOG.infof("Stopped reading %s of %s: its lease is no longer held by %s", shardId,
                        channel.streamArn(), leases.owner());
            }
            return ReaderPool.DONE;
        }
    }
}
