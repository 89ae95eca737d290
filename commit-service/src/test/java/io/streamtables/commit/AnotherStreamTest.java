package io.streamtables.commit;

import static io.streamtables.commit.CommitFixture.SHARD;
import static io.streamtables.commit.CommitFixture.STREAM_ARN;
import static io.streamtables.commit.CommitFixture.STREAM_B;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.streamtables.bus.DlqBatch;
import io.streamtables.bus.RowChunk;
import io.streamtables.bus.Sequences;
import io.streamtables.channel.Channel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A channel deleted and created again under its name on another stream, into the same table: the new stream's
 * shards have the old one's ids (and here lower sequence numbers). Each stream's records land once, under its own
 * positions, whatever a commit instance still holds of the old stream.
 */
class AnotherStreamTest {

    @TempDir
    Path dir;

    private CommitFixture f;
    private final List<DlqBatch> dlq = new ArrayList<>();

    @BeforeEach
    void setUp() {
        f = new CommitFixture(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    /**
     * The new stream's shards are read from the start, not taken for replays of the old one's. An instance that cut
     * records of the old stream before the channel moved, and commits them after (a zombie), lands them as the old
     * stream's, once; the new stream's positions do not move.
     */
    @Test
    void theNewStreamsShardsStartAfreshAndAZombieCutStaysTheOldStreams() {
        ChannelDelivery old = f.delivery(f.channel, dlq::addAll);
        old.append(f.chunk(STREAM_ARN, null, 101, 105));
        deliver(old);
        old.append(f.chunk(STREAM_ARN, "105", 106, 107));
        old.cut(); // held, not committed, while the channel is deleted and created again

        Channel moved = f.channelOn(STREAM_B);
        ChannelDelivery current = f.delivery(moved, dlq::addAll);
        current.append(f.chunk(STREAM_B, null, 1, 3));
        deliver(current);
        assertEquals(ids(1, 3, 101, 105), f.ids(), "the new stream's records");

        old.commit();
        assertEquals(Map.of(SHARD, "107"), f.watermarks(STREAM_ARN));
        assertEquals(Map.of(SHARD, "3"), f.watermarks(STREAM_B));
        current.append(f.chunk(STREAM_B, "3", 4, 5));
        deliver(current);
        assertEquals(ids(1, 5, 101, 107), f.ids());
        assertEquals(Map.of(SHARD, "5"), f.watermarks(STREAM_B));
    }

    /** A buffer of the old stream takes nothing of the new one: its cut's positions are its stream's. */
    @Test
    void aBufferTakesNoChunkOfAnotherStream() {
        ChannelBuffer buffer = f.buffer();
        assertThrows(ChannelBuffer.OtherStreamException.class, () -> buffer.append(f.chunk(STREAM_B, null, 1, 3)));
        assertEquals(Map.of(), buffer.cut().advanced(), "nothing taken");
    }

    /**
     * The old stream's last commit staged dead letters and its instance crashed before publishing them; the new
     * stream's commits, on the same shard id, leave them named, and the sweep publishes them.
     */
    @Test
    void theOldStreamsStrandedDeadLettersArePublishedAfterTheChannelMoved() {
        ChannelDelivery crashed = f.delivery(f.channel, batches -> {
            throw new IllegalStateException("the process died");
        });
        crashed.append(chunk(STREAM_ARN, 101, 110, 105));
        crashed.cut();
        crashed.commit();

        ChannelDelivery current = f.delivery(f.channelOn(STREAM_B), dlq::addAll);
        current.append(chunk(STREAM_B, 1, 10, 5));
        deliver(current);
        assertEquals(List.of(STREAM_B + " 5"), rejects(), "the new stream's own");
        long now = System.currentTimeMillis();
        current.sweep(now + ChannelDelivery.SWEEP_MS);
        current.sweep(now + 2 * ChannelDelivery.SWEEP_MS);
        assertEquals(List.of(STREAM_B + " 5", STREAM_ARN + " 105"), rejects(), "and the old stream's, once");
        assertEquals(Map.of(SHARD, "110"), f.watermarks(STREAM_ARN));
        assertEquals(Map.of(SHARD, "10"), f.watermarks(STREAM_B));
    }

    private static void deliver(ChannelDelivery d) {
        if (d.cut()) {
            d.commit();
            d.publish();
        }
    }

    /** Records first..last of the stream's shard, the one at {@code rejected} a reject. */
    private RowChunk chunk(String stream, long first, long last, long rejected) {
        List<RowChunk.Row> rows = new ArrayList<>();
        for (long s = first; s <= last; s++) {
            if (s != rejected) {
                rows.add(f.row(Long.toString(s), "2024-05-01T10:00:00Z"));
            }
        }
        return f.chunk(stream, SHARD, null, rows,
                List.of(CommitFixture.reject(stream, Long.toString(rejected), 1_714_557_600_000L + rejected)));
    }

    /** The DLQ's rejects, as stream and sequence number, sorted by sequence. */
    private List<String> rejects() {
        return dlq.stream().flatMap(b -> b.rejects().stream())
                .sorted((a, b) -> Sequences.ORDER.compare(a.sequenceNumber(), b.sequenceNumber()))
                .map(r -> r.streamArn() + " " + r.sequenceNumber()).toList();
    }

    private static List<Long> ids(long from, long to, long from2, long to2) {
        return Stream.concat(LongStream.rangeClosed(from, to).boxed(), LongStream.rangeClosed(from2, to2).boxed())
                .toList();
    }
}
