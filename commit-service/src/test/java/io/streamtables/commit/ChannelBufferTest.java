package io.streamtables.commit;

import static io.streamtables.commit.CommitFixture.MANIFESTS;
import static io.streamtables.commit.CommitFixture.SHARD;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.bus.DlqBatch;
import io.streamtables.bus.Reject;
import io.streamtables.bus.RewindException;
import io.streamtables.bus.RowChunk;
import io.streamtables.watermarks.ShardWatermarks;
import io.streamtables.watermarks.ZombieCommitException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The buffer's token logic (ARCHITECTURE "Exactly-once") against a real Iceberg table. */
class ChannelBufferTest {

    @TempDir
    Path dir;

    private CommitFixture f;

    @BeforeEach
    void setUp() {
        f = new CommitFixture(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    private static List<Long> range(long first, long last) {
        return LongStream.rangeClosed(first, last).boxed().toList();
    }

    /** Cuts, commits and acknowledges, as CommitService does. */
    private PendingCommit commit(ChannelBuffer buffer) {
        PendingCommit cut = buffer.cut();
        assertTrue(ShardWatermarks.commit(f.table, cut, MANIFESTS));
        buffer.committed(cut);
        return cut;
    }

    @Test
    void inOrderChunksMakeOneCut() {
        ChannelBuffer buffer = f.buffer();
        buffer.append(f.chunk(null, 1, 3));
        buffer.append(f.chunk("3", 4, 12)); // "12" sorts below "9" as text: the order must be numeric

        PendingCommit cut = buffer.cut();
        assertEquals(Map.of(SHARD, "12"), cut.advanced());
        assertTrue(cut.expected().containsKey(SHARD));
        assertNull(cut.expected().get(SHARD), "nothing committed yet");
        assertEquals(12, cut.rows());
        assertEquals(1, cut.files().size());
        assertTrue(cut.deadLetters().isEmpty());

        assertTrue(ShardWatermarks.commit(f.table, cut, MANIFESTS));
        buffer.committed(cut);
        assertEquals(range(1, 12), f.ids());

        buffer.append(f.chunk("12", 13, 14));
        PendingCommit next = buffer.cut();
        assertEquals(Map.of(SHARD, "12"), next.expected());
        assertEquals(Map.of(SHARD, "14"), next.advanced());
        assertEquals(2, next.rows());
    }

    @Test
    void replayedChunkIsDropped() {
        ChannelBuffer buffer = f.buffer();
        buffer.append(f.chunk(null, 1, 5));
        buffer.append(f.chunk(null, 1, 5));
        buffer.append(f.chunk("2", 3, 4));
        buffer.append(f.chunk("4", 5, 5));

        PendingCommit cut = buffer.cut();
        assertEquals(5, cut.rows());
        assertEquals(Map.of(SHARD, "5"), cut.advanced());
        ShardWatermarks.commit(f.table, cut, MANIFESTS);
        assertEquals(range(1, 5), f.ids());
    }

    @Test
    void overlappingChunkKeepsOnlyNewRows() {
        ChannelBuffer buffer = f.buffer();
        buffer.append(f.chunk(null, 1, 5));
        buffer.append(f.chunk("3", 4, 8));

        PendingCommit cut = buffer.cut();
        assertEquals(8, cut.rows());
        assertEquals(Map.of(SHARD, "8"), cut.advanced());
        ShardWatermarks.commit(f.table, cut, MANIFESTS);
        assertEquals(range(1, 8), f.ids());
    }

    @Test
    void gapAsksForARewindToTheBufferedHighMark() {
        ChannelBuffer buffer = f.buffer();
        buffer.append(f.chunk(null, 1, 5));

        RewindException e = assertThrows(RewindException.class, () -> buffer.append(f.chunk("7", 8, 9)));
        assertEquals(SHARD, e.shardId());
        assertEquals("5", e.resumeAfter());

        // the refused chunk left nothing behind
        PendingCommit cut = buffer.cut();
        assertEquals(5, cut.rows());
        assertEquals(Map.of(SHARD, "5"), cut.advanced());
    }

    @Test
    void continuationWithNothingBufferedOrCommittedRewindsToActivation() {
        ChannelBuffer buffer = f.buffer();
        RewindException e = assertThrows(RewindException.class, () -> buffer.append(f.chunk("5", 6, 7)));
        assertEquals(SHARD, e.shardId());
        assertNull(e.resumeAfter());
        assertTrue(buffer.cut().isEmpty());
    }

    @Test
    void newBufferStartsFromTheCommittedWatermarks() {
        ChannelBuffer first = f.buffer();
        first.append(f.chunk(null, 1, 5));
        commit(first);

        ChannelBuffer restarted = f.buffer();
        RewindException e = assertThrows(RewindException.class, () -> restarted.append(f.chunk("7", 8, 9)));
        assertEquals("5", e.resumeAfter());

        // read again from activation: what the table holds is dropped
        restarted.append(f.chunk(null, 3, 8));
        PendingCommit cut = restarted.cut();
        assertEquals(3, cut.rows());
        assertEquals(Map.of(SHARD, "5"), cut.expected());
        assertEquals(Map.of(SHARD, "8"), cut.advanced());
        assertTrue(ShardWatermarks.commit(f.table, cut, MANIFESTS));
        assertEquals(range(1, 8), f.ids());
    }

    @Test
    void oneFilePerHourPartition() throws IOException {
        ChannelBuffer buffer = f.buffer();
        List<RowChunk.Row> rows = List.of(
                f.row("1", "2024-05-01T10:05:00Z"),
                f.row("2", "2024-05-01T11:10:00Z"),
                f.row("3", "2024-05-01T15:45:00+05:30"), // 10:15 UTC
                f.row("4", "2024-05-01T12:30:00Z"),
                f.row("5", "2024-05-01T10:55:00Z"));
        buffer.append(f.chunk(null, rows, List.of()));

        PendingCommit cut = buffer.cut();
        Map<Integer, Long> countByHour = new TreeMap<>();
        for (DataFile file : cut.files()) {
            Integer hour = file.partition().get(0, Integer.class);
            assertNull(countByHour.put(hour, file.recordCount()), "two files for hour " + hour);
        }
        int h10 = (int) (Instant.parse("2024-05-01T10:00:00Z").getEpochSecond() / 3600);
        assertEquals(Map.of(h10, 3L, h10 + 1, 1L, h10 + 2, 1L), countByHour);

        assertTrue(ShardWatermarks.commit(f.table, cut, MANIFESTS));
        f.table.refresh();
        Map<Long, OffsetDateTime> read = new TreeMap<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(f.table).build()) {
            records.forEach(r -> read.put((Long) r.getField("id"), (OffsetDateTime) r.getField("ts")));
        }
        assertEquals(Map.of(
                1L, OffsetDateTime.of(2024, 5, 1, 10, 5, 0, 0, ZoneOffset.UTC),
                2L, OffsetDateTime.of(2024, 5, 1, 11, 10, 0, 0, ZoneOffset.UTC),
                3L, OffsetDateTime.of(2024, 5, 1, 10, 15, 0, 0, ZoneOffset.UTC),
                4L, OffsetDateTime.of(2024, 5, 1, 12, 30, 0, 0, ZoneOffset.UTC),
                5L, OffsetDateTime.of(2024, 5, 1, 10, 55, 0, 0, ZoneOffset.UTC)), read);
    }

    /** Decoded strings are Avro Utf8: a table partitioned by a string column takes them as Strings. */
    @Test
    void aStringPartitionTakesTheDecodersUtf8Values() throws Exception {
        f.table.updateSpec().addField("note").commit();
        ChannelBuffer buffer = f.buffer();
        List<RowChunk.Row> rows = List.of(f.row("1", "2024-05-01T10:05:00Z", "a"),
                f.row("2", "2024-05-01T10:06:00Z", "bé"), f.row("3", "2024-05-01T10:07:00Z", "a"));
        assertTrue(rows.get(0).value().getField("note") instanceof org.apache.avro.util.Utf8, "what the decoder makes");
        buffer.append(f.chunk(null, rows, List.of()));
        PendingCommit cut = commit(buffer);
        assertEquals(2, cut.files().size(), "one file per note");
        f.table.refresh();
        Map<Long, String> read = new TreeMap<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(f.table).build()) {
            records.forEach(r -> read.put((Long) r.getField("id"), (String) r.getField("note")));
        }
        assertEquals(Map.of(1L, "a", 2L, "bé", 3L, "a"), read);
        try (CloseableIterable<Record> records = IcebergGenerics.read(f.table)
                .where(org.apache.iceberg.expressions.Expressions.equal("note", "bé")).build()) {
            List<Long> ids = new ArrayList<>();
            records.forEach(r -> ids.add((Long) r.getField("id")));
            assertEquals(List.of(2L), ids, "read by its partition value");
        }
    }

    @Test
    void shardsAppendingAtOnceKeepOneFilePerPartitionAndEveryWatermark() throws Exception {
        f.table.refresh();
        ChannelBuffer buffer = new ChannelBuffer(f.channel, f.table, Map.of(), BufferLimits.DEFAULT.withLanes(3));
        int shards = 4;
        int chunks = 10;
        int perChunk = 30;
        List<Thread> threads = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < 2; t++) {
            int first = t;
            threads.add(new Thread(() -> {
                try {
                    for (int c = 0; c < chunks; c++) {
                        for (int s = first; s < shards; s += 2) {
                            List<RowChunk.Row> rows = new ArrayList<>();
                            for (int i = 0; i < perChunk; i++) {
                                long id = s * 100_000L + c * perChunk + i + 1;
                                rows.add(f.row(Long.toString(id), String.format("2024-05-01T%02d:30:00Z", (int) (id % 7))));
                            }
                            String previous = c == 0 ? null : Long.toString(s * 100_000L + c * perChunk);
                            buffer.append(f.chunk("shard-" + s, previous, rows, List.of()));
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        assertTrue(failures.isEmpty(), () -> "appends failed: " + failures);

        PendingCommit cut = buffer.cut();
        assertEquals(shards * chunks * perChunk, cut.rows());
        Map<Integer, Integer> filesByHour = new TreeMap<>();
        cut.files().forEach(file -> filesByHour.merge(file.partition().get(0, Integer.class), 1, Integer::sum));
        assertEquals(7, filesByHour.size());
        filesByHour.forEach((hour, n) -> assertEquals(1, n, "files for hour " + hour));
        for (int s = 0; s < shards; s++) {
            assertEquals(Long.toString(s * 100_000L + chunks * perChunk), cut.advanced().get("shard-" + s));
        }
        assertTrue(ShardWatermarks.commit(f.table, cut, MANIFESTS));
        buffer.committed(cut);
        f.table.refresh();
        List<Long> ids = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(f.table).build()) {
            records.forEach(r -> ids.add((Long) r.getField("id")));
        }
        assertEquals(shards * chunks * perChunk, ids.size());
        assertEquals(ids.size(), ids.stream().distinct().count());
    }

    @Test
    void dueAfterTheFreshnessInterval() {
        ChannelBuffer buffer = f.buffer();
        long now = System.currentTimeMillis();
        assertFalse(buffer.due(now + 3_600_000, 1), "an empty buffer is never due");

        long before = System.currentTimeMillis();
        buffer.append(f.chunk(null, 1, 1));
        long after = System.currentTimeMillis();
        assertFalse(buffer.due(before + 500, 1));
        assertFalse(buffer.due(before + 999, 1));
        assertTrue(buffer.due(after + 1_000, 1));
        assertFalse(buffer.due(before + 59_000, 60));
        assertTrue(buffer.due(after + 60_000, 60));

        buffer.cut();
        assertFalse(buffer.due(after + 3_600_000, 1), "the cut took everything");
    }

    @Test
    void freshnessCountsFromTheRecordsArrival() {
        ChannelBuffer buffer = f.buffer();
        long before = System.currentTimeMillis();
        // arrived 3 s ago: with 5 s freshness the cut is due 2 s after it reached the buffer, not 5 s
        buffer.append(f.chunk(null, List.of(arrivedAt(f.row("1", "2024-05-01T10:00:00Z"), before - 3_000)), List.of()));
        long after = System.currentTimeMillis();
        assertFalse(buffer.due(before + 1_900, 5));
        assertTrue(buffer.due(after + 2_000, 5));
        buffer.cut();

        // a backlog (arrived an hour ago) is cut after a quarter of the interval, not at every tick
        before = System.currentTimeMillis();
        buffer.append(f.chunk("1", List.of(arrivedAt(f.row("2", "2024-05-01T10:00:00Z"), before - 3_600_000)), List.of()));
        after = System.currentTimeMillis();
        assertFalse(buffer.due(before + 1_000, 8));
        assertTrue(buffer.due(after + 2_000, 8));
    }

    private static RowChunk.Row arrivedAt(RowChunk.Row row, long arrivalMillis) {
        return new RowChunk.Row(row.sequenceNumber(), arrivalMillis, row.value());
    }

    @Test
    void discardReturnsToTheCommittedWatermark() throws IOException {
        ChannelBuffer buffer = f.buffer();
        buffer.append(f.chunk(null, 1, 3));
        commit(buffer);

        buffer.append(f.chunk("3", 4, 6));
        buffer.discard();
        assertEquals(1, parquetFiles(), "the discarded rows' file is deleted");
        assertFalse(buffer.due(System.currentTimeMillis() + 3_600_000, 1));

        RewindException e = assertThrows(RewindException.class, () -> buffer.append(f.chunk("6", 7, 9)));
        assertEquals("3", e.resumeAfter());

        // the rewound reader sends the lost chunk again
        buffer.append(f.chunk("3", 4, 6));
        PendingCommit cut = buffer.cut();
        assertEquals(3, cut.rows());
        assertEquals(Map.of(SHARD, "3"), cut.expected());
        assertEquals(Map.of(SHARD, "6"), cut.advanced());
        assertTrue(ShardWatermarks.commit(f.table, cut, MANIFESTS));
        assertEquals(range(1, 6), f.ids());
    }

    // CommitService discards the buffer when a write fails, even while a cut is still being committed. Once that
    // cut lands, the table holds 1..5; the buffer must not forget it, or the reader is rewound to activation
    // and 1..5 are committed a second time.
    @Test
    void discardWhileACutIsPendingKeepsExactlyOnce() {
        ChannelBuffer buffer = f.buffer();
        buffer.append(f.chunk(null, 1, 5));
        PendingCommit pending = buffer.cut();
        buffer.append(f.chunk("5", 6, 8));
        buffer.discard(); // a write failure while the cut waits for its commit
        assertTrue(ShardWatermarks.commit(f.table, pending, MANIFESTS));
        buffer.committed(pending);

        RewindException e = assertThrows(RewindException.class, () -> buffer.append(f.chunk("8", 9, 10)));
        assertEquals("5", e.resumeAfter(), "the table already holds 1..5");

        buffer.append(f.chunk(null, 1, 10)); // even a reader restarted from activation
        PendingCommit cut = buffer.cut();
        assertTrue(ShardWatermarks.commit(f.table, cut, MANIFESTS));
        assertEquals(range(1, 10), f.ids());
    }

    @Test
    void rejectsBecomeOneDeadLetterBatchPerShard() {
        ChannelBuffer buffer = f.buffer();
        long arrival = Instant.parse("2024-05-01T10:20:00Z").toEpochMilli();
        Reject r3 = CommitFixture.reject("3", arrival);
        Reject r4 = CommitFixture.reject("4", arrival + 1);
        RowChunk chunk = f.chunk(null, List.of(f.row("1", "2024-05-01T10:00:00Z"), f.row("2", "2024-05-01T10:00:00Z")),
                List.of(r3, r4));
        buffer.append(chunk);
        buffer.append(chunk); // a replay adds no second copy

        PendingCommit cut = buffer.cut();
        assertEquals(2, cut.rows());
        assertEquals(2, cut.rejects());
        assertEquals(Map.of(SHARD, "4"), cut.advanced(), "the watermark covers the rejects");
        assertEquals(1, cut.deadLetters().size());
        DlqBatch batch = cut.deadLetters().get(0);
        assertEquals(f.channel.arn(), batch.channelArn());
        assertEquals(List.of(r3, r4), batch.rejects());
        assertEquals("errors/2024/05/01/10/orders-channel-" + SHARD + "-3.jsonl", batch.objectKey());

        assertTrue(buffer.cut().deadLetters().isEmpty(), "the cut took the rejects");
    }

    private long parquetFiles() throws IOException {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(dir.resolve("wh"))) {
            walk.filter(p -> p.toString().endsWith(".parquet")).forEach(files::add);
        }
        return files.size();
    }

    /** Two instances held the shard (bus partitions moved): the loser resumes from what the winner committed. */
    @Test
    void aDroppedCommitTakesTheWatermarksCommittedMeanwhile() {
        ChannelBuffer loser = f.buffer();
        ChannelBuffer winner = f.buffer();
        loser.append(f.chunk(null, 1, 5));
        winner.append(f.chunk(null, 1, 8));
        PendingCommit stale = loser.cut();
        commit(winner);
        assertThrows(ZombieCommitException.class, () -> ShardWatermarks.commit(f.table, stale, MANIFESTS));

        loser.discardAll();
        loser.append(f.chunk("8", 9, 10)); // continues the table, not the loser's stale view: no rewind
        commit(loser);
        assertEquals(range(1, 10), f.ids());
        assertEquals(Map.of(SHARD, "10"), f.watermarks());
    }

    /** Rows first..last of the shard, each in an hour of its own (hour n of 2024-05-01 onwards). */
    private RowChunk hourly(String previous, long first, long last) {
        List<RowChunk.Row> rows = new ArrayList<>();
        for (long seq = first; seq <= last; seq++) {
            rows.add(f.row(Long.toString(seq), Instant.parse("2024-05-01T00:00:00Z").plusSeconds(3600 * seq).toString()));
        }
        return f.chunk(previous, rows, List.of());
    }

    private static long partitions(PendingCommit cut) {
        return cut.files().stream().map(file -> file.partition().toString()).distinct().count();
    }

    /**
     * Producers choose the partition through the event time, and each partition holds an open writer until the
     * cut. Past max-open-partitions the buffer is cut early; the chunk waits until then, taken whole after.
     */
    @Test
    void aChunkPastThePartitionLimitWaitsForTheCut() {
        ChannelBuffer buffer = new ChannelBuffer(f.channel, f.table, Map.of(), limits(1_000, BufferedBytes.quarterOfHeap()));
        buffer.append(hourly(null, 1, 8));
        assertFalse(buffer.due(System.currentTimeMillis(), 900));
        assertThrows(ChannelBuffer.FullException.class, () -> buffer.append(hourly("8", 9, 13)));
        assertTrue(buffer.due(System.currentTimeMillis(), 900), "a full buffer is due at once");
        PendingCommit first = buffer.cut();
        assertEquals(8, first.files().size());
        assertEquals(Map.of(SHARD, "8"), first.advanced(), "nothing of the refused chunk was taken");
        buffer.append(hourly("8", 9, 13));
        PendingCommit second = buffer.cut();
        assertEquals(5, partitions(second));
        assertEquals(Map.of(SHARD, "13"), second.advanced());
    }

    /** A chunk that alone spans more partitions than the limit is written one partition at a time, then cut. */
    @Test
    void aWideChunkIsWrittenOnePartitionAtATime() {
        ChannelBuffer buffer = new ChannelBuffer(f.channel, f.table, Map.of(), limits(1_000, BufferedBytes.quarterOfHeap()));
        buffer.append(hourly(null, 1, 50));
        assertTrue(buffer.due(System.currentTimeMillis(), 900));
        assertThrows(ChannelBuffer.FullException.class, () -> buffer.append(hourly("50", 51, 51)));
        PendingCommit cut = buffer.cut();
        assertEquals(50, cut.files().size());
        assertEquals(50, partitions(cut), "one file per partition");
        assertTrue(ShardWatermarks.commit(f.table, cut, MANIFESTS));
        assertEquals(LongStream.rangeClosed(1, 50).boxed().toList(), f.ids());
        buffer.committed(cut);
        buffer.append(hourly("50", 51, 51));
        assertEquals(1, buffer.cut().files().size());
    }

    /** Rows and rejects past max-buffered-records wait for the cut (so rejects do not pile up while commits fail). */
    @Test
    void recordsPastTheLimitWaitForTheCut() {
        ChannelBuffer buffer = new ChannelBuffer(f.channel, f.table, Map.of(), limits(100, BufferedBytes.quarterOfHeap()));
        List<Reject> rejects = LongStream.rangeClosed(1, 60).mapToObj(i -> CommitFixture.reject(Long.toString(i), 1L)).toList();
        buffer.append(f.chunk(null, List.of(), rejects));
        buffer.append(f.chunk("60", 61, 90));
        assertThrows(ChannelBuffer.FullException.class, () -> buffer.append(f.chunk("90", 91, 120)));
        PendingCommit cut = buffer.cut();
        assertEquals(30, cut.rows());
        assertEquals(60, cut.rejects());
        buffer.append(f.chunk("90", 91, 120));
        assertEquals(30, buffer.cut().rows());
    }

    /** One lane, 10 open partitions, {@code records} rows and rejects, the stage's {@code bytes}. */
    private static BufferLimits limits(int records, BufferedBytes bytes) {
        return new BufferLimits(1, 512 * 1024, 10, records, bytes);
    }

    /**
     * What open writers hold counts against the stage's budget, over every channel's buffer: each writer's
     * own buffers ({@link BufferedBytes#WRITER_BYTES}) and its rows. Past the budget a chunk waits for its buffer's cut,
     * which gives the bytes back; an empty buffer takes any chunk, one that does not fit one partition at a time.
     */
    @Test
    void bytesPastTheStagesBudgetWaitForTheCut() {
        long writer = BufferedBytes.WRITER_BYTES;
        BufferedBytes stage = new BufferedBytes(writer + 10_000);
        ChannelBuffer buffer = new ChannelBuffer(f.channel, f.table, Map.of(), limits(1_000, stage));
        buffer.append(f.chunk(null, noted(1, 3, 3_000), List.of()));
        assertTrue(stage.held() > writer + 9_000 && stage.held() <= writer + 10_000, "held " + stage.held());
        assertThrows(ChannelBuffer.FullException.class, () -> buffer.append(f.chunk("3", noted(4, 4, 3_000), List.of())));
        assertTrue(buffer.due(System.currentTimeMillis(), 900), "a buffer past the budget is due at once");

        // another channel's buffer shares the budget: empty, it takes a chunk all the same, one partition at a time
        ChannelBuffer other = new ChannelBuffer(f.channel, f.table, Map.of(), limits(1_000, stage));
        other.append(f.chunk("shardId-000000000002", null, noted(1, 2, 3_000), List.of()));
        assertTrue(other.due(System.currentTimeMillis(), 900), "written whole, then due");
        assertEquals(1, other.cut().files().size());

        PendingCommit cut = buffer.cut();
        assertEquals(3, cut.rows());
        assertEquals(0, stage.held(), "the cuts gave their bytes back");
        buffer.append(f.chunk("3", noted(4, 4, 3_000), List.of()));
        assertTrue(stage.held() > writer, "held " + stage.held());
        buffer.discard();
        assertEquals(0, stage.held(), "the discard gave its bytes back");
    }

    private List<RowChunk.Row> noted(long first, long last, int noteLength) {
        List<RowChunk.Row> rows = new ArrayList<>();
        for (long s = first; s <= last; s++) {
            rows.add(f.row(Long.toString(s), "2024-05-01T10:00:00Z", "x".repeat(noteLength)));
        }
        return rows;
    }
}
