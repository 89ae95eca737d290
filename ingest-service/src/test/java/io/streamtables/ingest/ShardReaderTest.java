package io.streamtables.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.bus.CommitToken;
import io.streamtables.bus.KinesisRecord;
import io.streamtables.bus.RewindRequest;
import io.streamtables.channel.Channel;
import io.streamtables.config.KinesisLocal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.GetRecordsRequest;
import software.amazon.awssdk.services.kinesis.model.GetRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.GetShardIteratorRequest;
import software.amazon.awssdk.services.kinesis.model.GetShardIteratorResponse;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;

/**
 * How a {@link ShardReader} paces its GetRecords calls on kinesis-local: a shard allows 5 calls a second, so two
 * calls start at least 200 ms apart; the time spent handing a chunk on counts towards that interval, so a reader
 * whose chunk took longer calls again at once instead of pausing 200 ms more. And how it takes a rewind the commit
 * stage asks over the bus.
 */
class ShardReaderTest {

    private KinesisClient kinesis;
    private String streamName;

    /** The real client, noting when each GetRecords call starts, with its limit, and counting the listings. */
    static final class TimedKinesis implements KinesisClient {
        final KinesisClient delegate;
        final List<Long> calls = new CopyOnWriteArrayList<>();
        final List<Integer> limits = new CopyOnWriteArrayList<>();
        final java.util.concurrent.atomic.AtomicInteger listings = new java.util.concurrent.atomic.AtomicInteger();

        TimedKinesis(KinesisClient delegate) {
            this.delegate = delegate;
        }

        @Override
        public GetRecordsResponse getRecords(GetRecordsRequest request) {
            calls.add(System.nanoTime());
            limits.add(request.limit());
            return delegate.getRecords(request);
        }

        @Override
        public GetShardIteratorResponse getShardIterator(GetShardIteratorRequest request) {
            return delegate.getShardIterator(request);
        }

        @Override
        public software.amazon.awssdk.services.kinesis.model.ListShardsResponse listShards(
                software.amazon.awssdk.services.kinesis.model.ListShardsRequest request) {
            listings.incrementAndGet();
            return delegate.listShards(request);
        }

        @Override
        public String serviceName() {
            return delegate.serviceName();
        }

        @Override
        public void close() {
        }
    }

    /** A chunk handed on: its records, and when publishing it started and returned. */
    record Handed(List<String> sequences, long startNanos, long endNanos) {
    }

    @Test
    void callsStartAtLeast200MsApartAndTheTimeSpentHandingOnCountsTowardsThePause() throws Exception {
        kinesis = KinesisLocal.client();
        streamName = "pacing-" + Long.toString(System.currentTimeMillis(), 36);
        KinesisLocal.createStream(kinesis, streamName, 1);
        Channel channel = KinesisLocal.channel(kinesis, streamName);
        Instant activatedAt = Instant.now().minusSeconds(1);
        // 100 records a call (a reader that gets fewer than 100 and is not behind pauses longer: it caught up)
        List<String> produced = new ArrayList<>();
        for (int put = 0; put < 2; put++) {
            List<PutRecordsRequestEntry> entries = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                entries.add(PutRecordsRequestEntry.builder().partitionKey("k")
                        .data(SdkBytes.fromUtf8String("{\"i\":" + (put * 300 + i) + "}")).build());
            }
            kinesis.putRecords(r -> r.streamName(streamName).records(entries)).records()
                    .forEach(r -> produced.add(r.sequenceNumber()));
        }
        String shardId = kinesis.listShards(r -> r.streamName(streamName)).shards().get(0).shardId();

        // Every other chunk takes 300 ms to hand on (a slow next stage), the others no time at all.
        TimedKinesis timed = new TimedKinesis(kinesis);
        List<Handed> handed = new CopyOnWriteArrayList<>();
        AtomicBoolean running = new AtomicBoolean(true);
        ChunkSink sink = (chunk, wanted) -> {
            long start = System.nanoTime();
            if (handed.size() % 2 == 0) {
                Thread.sleep(300);
            }
            handed.add(new Handed(chunk.records().stream().map(KinesisRecord::sequenceNumber).toList(), start,
                    System.nanoTime()));
            if (handed.stream().mapToInt(h -> h.sequences().size()).sum() >= produced.size()) {
                running.set(false);
            }
        };
        ShardReader reader = new ShardReader(timed, null, channel, shardId, null, activatedAt, sink, new RewindRequests(),
                running::get, 100, channel::freshnessSeconds, (arn, shard, millis) -> { });
        readUntilStopped(reader, running);

        assertEquals(produced, handed.stream().flatMap(h -> h.sequences().stream()).toList(),
                "every record handed on once, in order");
        assertTrue(handed.size() >= 6, "chunks of at most 100 records: " + handed.size());
        // 190, not 200: the interval is kept in milliseconds from just before the call, the test reads nanoseconds
        // inside it
        List<Long> calls = timed.calls;
        for (int i = 1; i < calls.size(); i++) {
            long apartMs = (calls.get(i) - calls.get(i - 1)) / 1_000_000;
            assertTrue(apartMs >= 190, "calls " + (i - 1) + " and " + i + " started " + apartMs + " ms apart");
        }
        // The call after a slow chunk follows it at once; the one after a fast chunk waits out the 200 ms.
        for (int i = 0; i + 1 < handed.size(); i++) {
            Handed h = handed.get(i);
            long next = calls.stream().filter(c -> c > h.endNanos()).findFirst().orElseThrow();
            long afterMs = (next - h.endNanos()) / 1_000_000;
            if (i % 2 == 0) {
                assertTrue(afterMs < 100, "chunk " + i + " took 300 ms to hand on, yet the next call came "
                        + afterMs + " ms after it");
            } else {
                long sinceCallMs = (next - calls.stream().filter(c -> c < h.startNanos()).reduce((a, b) -> b)
                        .orElseThrow()) / 1_000_000;
                assertTrue(sinceCallMs >= 190, "chunk " + i + ": next call " + sinceCallMs
                        + " ms after the one that read it");
            }
        }
    }

    /**
     * An adaptive read: on an empty shard the reader of a channel at the default freshness interval asks
     * with the caught-up limit and less and less often (500 ms, 1 s, then every 2 s); a burst arriving puts it back at the full limit and rate, and it reads every
     * record of it in order.
     */
    @Test
    void anIdleShardIsReadLessAndLessOftenAndABurstAtTheFullRateAgain() throws Exception {
        kinesis = KinesisLocal.client();
        streamName = "idle-" + Long.toString(System.currentTimeMillis(), 36);
        KinesisLocal.createStream(kinesis, streamName, 1);
        Channel local = KinesisLocal.channel(kinesis, streamName);
        Channel channel = new Channel(local.arn(), local.definition(), local.streamArn(), local.recordFormat(), null,
                Channel.DEFAULT_FRESHNESS_SECONDS, "NONE", local.table(), null, null, null, null, null);
        String shardId = kinesis.listShards(r -> r.streamName(streamName)).shards().get(0).shardId();
        TimedKinesis timed = new TimedKinesis(kinesis);
        List<String> handed = new CopyOnWriteArrayList<>();
        List<String> produced = new CopyOnWriteArrayList<>();
        AtomicBoolean running = new AtomicBoolean(true);
        ChunkSink sink = (chunk, wanted) -> {
            chunk.records().forEach(r -> handed.add(r.sequenceNumber()));
            if (!produced.isEmpty() && handed.size() >= produced.size()) {
                running.set(false);
            }
        };
        ShardReader reader = new ShardReader(timed, null, channel, shardId, null, Instant.now().minusSeconds(1), sink,
                new RewindRequests(), running::get, 1_000, channel::freshnessSeconds, (arn, shard, millis) -> { });
        CountDownLatch stopped = startReading(reader);
        Thread.sleep(6_000);
        List<Long> idle = List.copyOf(timed.calls);
        for (int put = 0; put < 4; put++) { // 2 000 records: fuller than the caught-up limit
            produced.addAll(put(500));
        }
        readUntilStopped(stopped, running);

        // at 500 ms, then 1 s, then 2 s apart: at most 5 calls in 6 s (a reader at 2 calls/s makes 12, at 5/s 30)
        assertTrue(idle.size() >= 3 && idle.size() <= 5, "calls on an idle shard in 6 s: " + idle.size());
        long lastGapMs = (idle.get(idle.size() - 1) - idle.get(idle.size() - 2)) / 1_000_000;
        assertTrue(lastGapMs >= ReadPace.MAX_IDLE_WAIT_MS - 10, "an idle shard's calls " + lastGapMs + " ms apart");
        assertEquals(ReadPace.CAUGHT_UP_LIMIT, timed.limits.get(idle.size() - 1), "a caught-up reader's limit");
        assertTrue(timed.limits.subList(idle.size(), timed.limits.size()).contains(1_000),
                "the burst read at the full limit: " + timed.limits);
        assertEquals(produced, handed, "every record of the burst handed on once, in order");
    }

    /**
     * The commit stage refuses the first chunk and asks, over the bus, for the shard to be read again from the
     * activation: the reader sends nothing more of that GetRecords answer (it would be refused too), then reads
     * again from the point asked. Each record is over half a chunk, so the answer makes three chunks.
     */
    @Test
    void aRewindAskedOverTheBusStopsTheAnswerAndReadsAgainFromThePointAsked() throws Exception {
        kinesis = KinesisLocal.client();
        streamName = "rewind-" + Long.toString(System.currentTimeMillis(), 36);
        KinesisLocal.createStream(kinesis, streamName, 1);
        Channel channel = KinesisLocal.channel(kinesis, streamName);
        Instant activatedAt = Instant.now().minusSeconds(1);
        String big = "{\"pad\":\"" + "x".repeat(600_000) + "\"}";
        List<PutRecordsRequestEntry> entries = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            entries.add(PutRecordsRequestEntry.builder().partitionKey("k").data(SdkBytes.fromUtf8String(big)).build());
        }
        List<String> produced = kinesis.putRecords(r -> r.streamName(streamName).records(entries)).records().stream()
                .map(r -> r.sequenceNumber()).toList();
        String shardId = kinesis.listShards(r -> r.streamName(streamName)).shards().get(0).shardId();

        RewindRequests rewinds = new RewindRequests();
        List<String> handed = new CopyOnWriteArrayList<>();
        AtomicBoolean running = new AtomicBoolean(true);
        ChunkSink sink = (chunk, wanted) -> {
            if (handed.isEmpty()) { // refused: RewindOverBus publishes the request, RewindRequests receives it
                rewinds.received(new RewindRequest(chunk.token(), null));
            }
            chunk.records().forEach(r -> handed.add(r.sequenceNumber()));
            if (handed.size() >= produced.size() + 1) {
                running.set(false);
            }
        };
        ShardReader reader = new ShardReader(kinesis, null, channel, shardId, null, activatedAt, sink, rewinds,
                running::get, 100, channel::freshnessSeconds, (arn, shard, millis) -> { });
        readUntilStopped(reader, running);

        assertEquals(List.of(produced.get(0), produced.get(0), produced.get(1), produced.get(2)), handed,
                "the refused chunk, then the shard read again from the activation");
    }

    /**
     * A rewind asked for the shard of the same id of the stream the channel read before it was deleted and created
     * again on this one (a chunk of it still on the bus): that position is not in this stream, and the reader goes on
     * as it was, every record once. Taken, it read after that position here; ignored once the answer's rest was held
     * back for it, that rest was skipped.
     */
    @Test
    void aRewindOfAnotherStreamsShardOfTheSameIdIsNotTaken() throws Exception {
        kinesis = KinesisLocal.client();
        streamName = "rewind-other-" + Long.toString(System.currentTimeMillis(), 36);
        KinesisLocal.createStream(kinesis, streamName, 1);
        Channel channel = KinesisLocal.channel(kinesis, streamName);
        Instant activatedAt = Instant.now().minusSeconds(1);
        String big = "{\"pad\":\"" + "x".repeat(600_000) + "\"}";
        List<PutRecordsRequestEntry> entries = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            entries.add(PutRecordsRequestEntry.builder().partitionKey("k").data(SdkBytes.fromUtf8String(big)).build());
        }
        List<String> produced = kinesis.putRecords(r -> r.streamName(streamName).records(entries)).records().stream()
                .map(r -> r.sequenceNumber()).toList();
        String shardId = kinesis.listShards(r -> r.streamName(streamName)).shards().get(0).shardId();

        RewindRequests rewinds = new RewindRequests();
        List<String> handed = new CopyOnWriteArrayList<>();
        AtomicBoolean running = new AtomicBoolean(true);
        ChunkSink sink = (chunk, wanted) -> {
            if (handed.isEmpty()) {
                CommitToken before = new CommitToken(channel.arn(), channel.streamArn() + "-before", shardId, null,
                        "1", "1");
                rewinds.received(new RewindRequest(before, produced.get(2)));
            }
            chunk.records().forEach(r -> handed.add(r.sequenceNumber()));
            if (handed.size() >= produced.size()) {
                running.set(false);
            }
        };
        ShardReader reader = new ShardReader(kinesis, null, channel, shardId, null, activatedAt, sink, rewinds,
                running::get, 100, channel::freshnessSeconds, (arn, shard, millis) -> { });
        readUntilStopped(reader, running);

        assertEquals(produced, handed, "every record once, in order");
    }

    /**
     * Backfill: a shard never read starts at the channel's start position: TRIM_HORIZON hands on what the
     * stream held before, a timestamp what arrived from then on.
     */
    @Test
    void aShardNeverReadStartsAtTheStartPosition() throws Exception {
        kinesis = KinesisLocal.client();
        streamName = "backfill-" + Long.toString(System.currentTimeMillis(), 36);
        KinesisLocal.createStream(kinesis, streamName, 1);
        Channel channel = KinesisLocal.channel(kinesis, streamName);
        List<String> before = put(3);
        Thread.sleep(1_500);
        Instant between = Instant.now();
        Thread.sleep(1_500);
        List<String> after = put(3);
        String shardId = kinesis.listShards(r -> r.streamName(streamName)).shards().get(0).shardId();
        List<String> all = new ArrayList<>(before);
        all.addAll(after);

        assertEquals(all, readFrom(channel, shardId, null, all.size()), "TRIM_HORIZON: every record the shard holds");
        assertEquals(after, readFrom(channel, shardId, between, after.size()), "a timestamp: the records from then on");
    }

    private List<String> put(int n) {
        List<PutRecordsRequestEntry> entries = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            entries.add(PutRecordsRequestEntry.builder().partitionKey("k")
                    .data(SdkBytes.fromUtf8String("{\"i\":" + i + "}")).build());
        }
        return kinesis.putRecords(r -> r.streamName(streamName).records(entries)).records().stream()
                .map(r -> r.sequenceNumber()).toList();
    }

    /** The sequence numbers handed on by a reader starting at {@code startAt}, until {@code expected} came (30 s). */
    private List<String> readFrom(Channel channel, String shardId, Instant startAt, int expected)
            throws InterruptedException {
        List<String> handed = new CopyOnWriteArrayList<>();
        AtomicBoolean running = new AtomicBoolean(true);
        ChunkSink sink = (chunk, wanted) -> {
            chunk.records().forEach(r -> handed.add(r.sequenceNumber()));
            if (handed.size() >= expected) {
                running.set(false);
            }
        };
        readUntilStopped(new ShardReader(kinesis, null, channel, shardId, null, startAt, sink, new RewindRequests(),
                running::get, 100, channel::freshnessSeconds, (arn, shard, millis) -> { }), running);
        return handed;
    }

    /** Reads on a pool of its own until the sink clears {@code running} (30 s at most), then stops the reader. */
    private static void readUntilStopped(ShardReader reader, AtomicBoolean running) throws InterruptedException {
        readUntilStopped(startReading(reader), running);
    }

    /** Runs the reader's steps on a pool of one thread, as ingest does; the latch opens when it stops. */
    private static CountDownLatch startReading(ShardReader reader) {
        CountDownLatch stopped = new CountDownLatch(1);
        new ReaderPool(1, "shard-test").start("test reader", reader::step, stopped::countDown);
        return stopped;
    }

    private static void readUntilStopped(CountDownLatch stopped, AtomicBoolean running) throws InterruptedException {
        stopped.await(30, TimeUnit.SECONDS);
        running.set(false);
        assertTrue(stopped.await(5, TimeUnit.SECONDS), "the reader stops once running is false");
    }

    @AfterEach
    void stop() {
        if (kinesis != null) {
            KinesisLocal.deleteStream(kinesis, streamName);
        }
    }
}
