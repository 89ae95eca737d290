package io.streamtables.ingest;

import io.streamtables.bus.CommitToken;
import io.streamtables.bus.KinesisRecord;
import io.streamtables.bus.RecordChunk;
import io.streamtables.bus.Sequences;
import io.streamtables.channel.Channel;
import io.streamtables.tasks.Backoff;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import org.jboss.logging.Logger;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ExpiredIteratorException;
import software.amazon.awssdk.services.kinesis.model.GetRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.GetShardIteratorRequest;
import software.amazon.awssdk.services.kinesis.model.LimitExceededException;
import software.amazon.awssdk.services.kinesis.model.ProvisionedThroughputExceededException;
import software.amazon.awssdk.services.kinesis.model.Record;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;

/**
 * Reads one shard with GetRecords from just after its committed watermark (or from the channel's
 * activation time) to its end, within the per-shard limit of 5 calls a second, a call per {@link #step} (a
 * {@link ReaderPool} runs the steps). Its steps run one at a time; what was
 * handed on and committed the stream's reader may ask from another thread.
 */
final class ShardReader {

    private static final Logger LOG = Logger.getLogger(ShardReader.class);
    static final long MAX_BACKOFF_MS = 10_000;
    /**
     * A chunk's payload bytes. GetRecords answers up to 10 MB: handed on 1 MiB at a time, each part dropped once
     * taken, less of it survives young collections (less of the pipeline's time goes to GC), and a
     * bus message stays well under its limit.
     */
    static final long MAX_CHUNK_BYTES = 1L << 20;
    /** What {@link #step} returns once the end of the shard was reached (after a split or merge). */
    static final long END = -2;

    private final KinesisClient kinesis;
    /** Makes each request sign as the channel's role; null: the service's own credentials. */
    private final AwsRequestOverrideConfiguration signAs;
    private final Channel channel;
    private final String shardId;
    /** Where a shard never read before starts (StartPosition): a timestamp, or null for TRIM_HORIZON. */
    private final Instant startAt;
    private final ChunkSink sink;
    private final RewindRequests rewinds;
    private final String shardKey;
    private final BooleanSupplier running;
    private final ShardLag lag;
    /** The last sequence number handed on (or committed, at start); reading resumes after it. */
    private volatile String lastSequence;
    private volatile boolean published;
    private volatile long lastPublishedAtMillis;
    /** The chunks handed on and not yet seen in the table: last sequence number and when, oldest first. */
    private final Deque<Handed> uncommitted = new ConcurrentLinkedDeque<>();
    /** The table has not taken this reader's chunks for too long: it reads nothing more until it does. */
    private volatile boolean paused;
    /** Read one chunk after a rewind while paused, then pause again. */
    private boolean probing;
    /** Where the next GetRecords call reads; null: ask for one after {@link #lastSequence}. */
    private String iterator;
    private final Backoff backoff = new Backoff(2 * ReadPace.MIN_CALL_INTERVAL_MS, MAX_BACKOFF_MS);
    private final ReadPace pace;

    private record Handed(String lastSequence, long atMillis) {
    }

    ShardReader(KinesisClient kinesis, AwsRequestOverrideConfiguration signAs, Channel channel, String shardId,
            String watermark, Instant startAt, ChunkSink sink, RewindRequests rewinds, BooleanSupplier running,
            int maxRecordsPerCall, IntSupplier freshnessSeconds, ShardLag lag) {
        this.kinesis = kinesis;
        this.signAs = signAs;
        this.lag = lag;
        this.channel = channel;
        this.shardId = shardId;
        this.lastSequence = watermark;
        this.startAt = startAt;
        this.sink = sink;
        this.rewinds = rewinds;
        this.shardKey = new CommitToken(channel.arn(), null, shardId, null, null, null).key();
        this.running = running;
        this.pace = new ReadPace(maxRecordsPerCall, freshnessSeconds);
    }

    /** The last sequence number this reader published, or null when it published nothing. */
    String lastPublished() {
        return published ? lastSequence : null;
    }

    /** When the last chunk was handed on. */
    long lastPublishedAtMillis() {
        return lastPublishedAtMillis;
    }

    String shardKey() {
        return shardKey;
    }

    /** Whether the commit stage asked this shard to be read again, and the reader has not done so yet. */
    boolean rewindWaiting() {
        return rewinds.waiting(shardKey, channel);
    }

    /** When the oldest chunk handed on and not seen in the table was handed on; 0 when there is none. */
    long oldestUncommittedAtMillis() {
        Handed oldest = uncommitted.peekFirst();
        return oldest == null ? 0 : oldest.atMillis();
    }

    /**
     * The table's watermark of the shard, as last read: the chunks it holds are forgotten, and reading pauses once the
     * oldest chunk it does not hold was handed on more than {@code maxWaitMillis} ago, until it holds them all. Over
     * Kafka a reader gets no other sign that the commit stage takes nothing (in memory, its handing on waits).
     */
    synchronized void committed(String watermark, long now, long maxWaitMillis) {
        Handed oldest = uncommitted.peekFirst();
        while (oldest != null && Sequences.atOrBelow(oldest.lastSequence(), watermark)) {
            uncommitted.pollFirst();
            oldest = uncommitted.peekFirst();
        }
        boolean pause = paused ? oldest != null : oldest != null && now - oldest.atMillis() > maxWaitMillis;
        if (pause != paused) {
            LOG.infof(pause ? "Shard %s: the table has not taken its chunks for %d s; reading pauses until it does"
                    : "Shard %s: the table took its chunks; reading goes on", shardId,
                    oldest == null ? 0 : (now - oldest.atMillis()) / 1000);
        }
        paused = pause;
    }

    boolean paused() {
        return paused;
    }

    /**
     * A rewind reads again after the table's watermark. A paused reader reads one chunk then pauses again (a probe):
     * if the table was only missing a chunk (a commit instance died with it) it takes that one and reading goes on; if
     * the commit stage takes nothing, one chunk is sent again per redelivery, not the whole backlog.
     */
    private synchronized void rewindTo(String resumeAfter) {
        lastSequence = resumeAfter;
        uncommitted.clear();
        probing = paused;
        paused = false;
    }

    private synchronized void handedOn(String last, long atMillis) {
        lastSequence = last;
        lastPublishedAtMillis = atMillis;
        published = true;
        uncommitted.addLast(new Handed(last, atMillis));
        if (probing) {
            probing = false;
            paused = true;
        }
    }

    /**
     * One GetRecords call, and the handing on of what it answered; {@code running} (it includes holding the shard's
     * lease) is checked before the call and every chunk.
     *
     * @return the milliseconds until the next call (within the shard's 5 calls a second, slower while it is idle or
     *     throttled); {@link #END} once the end of the shard was reached; {@link ReaderPool#DONE} once stopped
     */
    long step() throws InterruptedException {
        if (!running.getAsBoolean()) {
            return ReaderPool.DONE;
        }
        try {
            RewindRequests.Rewind asked = rewinds.take(shardKey, channel);
            if (asked != null) { // the commit stage refused a chunk (RewindOverBus)
                LOG.infof("Shard %s must be read again after %s", shardId,
                        asked.resumeAfter() == null ? "activation" : asked.resumeAfter());
                rewindTo(asked.resumeAfter());
                iterator = null;
            }
            if (paused) {
                return ReadPace.IDLE_WAIT_MS;
            }
            if (iterator == null) {
                iterator = iterator();
            }
            String current = iterator;
            long calledAt = System.currentTimeMillis();
            GetRecordsResponse response = kinesis.getRecords(r -> r.overrideConfiguration(signAs).shardIterator(current)
                    .limit(pace.limit()).streamARN(channel.streamArn().toString()));
            backoff.reset();
            Long behind = response.millisBehindLatest();
            String next = response.nextShardIterator();
            Record[] records = response.records().toArray(Record[]::new);
            response = null; // the records array alone holds the payloads now (see publish)
            if (behind != null) {
                lag.behind(channel.arn(), shardId, behind);
            }
            if (records.length > 0) {
                publish(records);
                if (!running.getAsBoolean()) {
                    return ReaderPool.DONE; // stopped (or the lease lost) part way: the rest is not handed on
                }
            }
            iterator = next;
            if (iterator == null) {
                return END;
            }
            pace.answered(records.length, behind);
            // The limit is on calls, so the time spent handing the records on counts towards the interval.
            return Math.max(0, calledAt + pace.waitMs() - System.currentTimeMillis());
        } catch (ProvisionedThroughputExceededException | LimitExceededException e) {
            long wait = backoff.next();
            LOG.debugf("Shard %s throttled, backing off %d ms", shardId, wait);
            return wait;
        } catch (ExpiredIteratorException e) {
            iterator = null;
            return 0;
        } catch (SdkException e) {
            long wait = backoff.next();
            LOG.warnf("Reading shard %s of %s failed, retrying in %d ms: %s", shardId, channel.streamArn(),
                    wait, e.getMessage());
            iterator = null;
            return wait;
        }
    }

    /**
     * One chunk per {@link #MAX_CHUNK_BYTES} of payload, each continuing the previous one. A chunk's records are
     * cleared from {@code records} as it is handed on, so that a taken chunk's payloads can be collected while
     * the rest of the answer waits. Once the commit stage asked for a rewind, the rest of the answer is not sent.
     */
    private void publish(Record[] records) throws InterruptedException {
        int from = 0;
        while (from < records.length && running.getAsBoolean() && !rewindWaiting()) {
            long bytes = 0;
            int to = from;
            while (to < records.length
                    && (to == from || bytes + records[to].data().asByteArrayUnsafe().length <= MAX_CHUNK_BYTES)) {
                bytes += records[to].data().asByteArrayUnsafe().length;
                to++;
            }
            publishChunk(records, from, to);
            from = to;
        }
    }

    private void publishChunk(Record[] records, int from, int to) throws InterruptedException {
        List<KinesisRecord> chunk = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            Record r = records[i];
            chunk.add(new KinesisRecord(r.sequenceNumber(),
                    r.approximateArrivalTimestamp() == null ? System.currentTimeMillis()
                            : r.approximateArrivalTimestamp().toEpochMilli(),
                    r.data().asByteArrayUnsafe()));
        }
        String first = records[from].sequenceNumber();
        String last = records[to - 1].sequenceNumber();
        Arrays.fill(records, from, to, null);
        sink.publish(new RecordChunk(new CommitToken(channel.arn(), channel.streamArn().toString(), shardId,
                lastSequence, first, last), chunk), running);
        handedOn(last, System.currentTimeMillis());
    }

    /**
     * After the last sequence handed on; a shard never read before starts where the channel's start position says
     * (its activation by default; the oldest record for TRIM_HORIZON).
     */
    private String iterator() {
        GetShardIteratorRequest.Builder request = GetShardIteratorRequest.builder().overrideConfiguration(signAs)
                .streamARN(channel.streamArn().toString()).shardId(shardId);
        if (lastSequence != null) {
            request.shardIteratorType(ShardIteratorType.AFTER_SEQUENCE_NUMBER).startingSequenceNumber(lastSequence);
        } else if (startAt == null) {
            request.shardIteratorType(ShardIteratorType.TRIM_HORIZON);
        } else {
            request.shardIteratorType(ShardIteratorType.AT_TIMESTAMP).timestamp(startAt);
        }
        return kinesis.getShardIterator(request.build()).shardIterator();
    }
}
