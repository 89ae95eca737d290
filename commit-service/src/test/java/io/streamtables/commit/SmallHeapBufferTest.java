package io.streamtables.commit;

import static io.streamtables.commit.CommitFixture.MANIFESTS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.bus.RowChunk;
import io.streamtables.watermarks.ShardWatermarks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The buffer's byte budget at a small heap: {@link #main} runs in a JVM of its own with {@code -Xmx160m} and writes 600
 * records of 40 KB of random (incompressible) text, each chunk over 100 hour partitions, through one channel's buffer
 * as the commit stage does (a full buffer is cut and committed, then takes the chunk). An open writer holds about
 * 1.4 MB of its own and its row group's pages until the cut: without the budget, 100 of them run the heap out (an
 * OutOfMemoryError, checked by hand with {@code -Dbudget=0}); with 16 MB each chunk is written one partition at a
 * time, and the table reads back every record.
 */
class SmallHeapBufferTest {

    static final int CHUNKS = 6;
    static final int PARTITIONS = 100;
    static final int NOTE_BYTES = 40 * 1024;

    @Test
    void largeIncompressibleRecordsOverManyPartitionsFitASmallHeap(@TempDir Path dir) throws Exception {
        Path log = dir.resolve("child.log");
        Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx160m", "-Dbudget=" + (16 << 20), "-cp", System.getProperty("java.class.path"),
                SmallHeapBufferTest.class.getName(), dir.resolve("table").toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        assertTrue(child.waitFor(5, TimeUnit.MINUTES), "the writer did not finish in 5 minutes");
        String output = Files.readString(log);
        assertEquals(0, child.exitValue(), output);
        assertTrue(output.contains("rows " + CHUNKS * PARTITIONS), output);
        System.out.print(output.lines().filter(l -> l.startsWith("rows ")).findFirst().orElse(""));
    }

    /** Writes and commits the records at this JVM's heap; prints what the table holds. */
    public static void main(String[] args) throws Exception {
        long budget = Long.getLong("budget", 0);
        try (CommitFixture f = new CommitFixture(Files.createDirectories(Path.of(args[0])))) {
            ChannelBuffer buffer = new ChannelBuffer(f.channel, f.table, Map.of(), new BufferLimits(1, 512 * 1024,
                    PARTITIONS, 500_000, new BufferedBytes(budget > 0 ? budget : Long.MAX_VALUE)));
            Random random = new Random(36);
            String previous = null;
            int commits = 0;
            for (int c = 0; c < CHUNKS; c++) {
                List<RowChunk.Row> rows = new ArrayList<>();
                for (int p = 0; p < PARTITIONS; p++) {
                    long sequence = (long) c * PARTITIONS + p + 1;
                    byte[] noise = new byte[NOTE_BYTES * 3 / 4];
                    random.nextBytes(noise);
                    rows.add(f.row(Long.toString(sequence), Instant.parse("2024-05-01T00:00:00Z")
                            .plusSeconds(3600L * p).toString(), Base64.getEncoder().encodeToString(noise)));
                }
                RowChunk chunk = f.chunk(previous, rows, List.of());
                try {
                    buffer.append(chunk);
                } catch (ChannelBuffer.FullException full) {
                    commit(f, buffer);
                    commits++;
                    buffer.append(chunk);
                }
                previous = chunk.token().lastSequence();
            }
            commit(f, buffer);
            commits++;
            long rows = 0;
            try (CloseableIterable<Record> read = IcebergGenerics.read(f.table).select("id").build()) {
                for (Record ignored : read) {
                    rows++;
                }
            }
            System.out.println("rows " + rows + " in " + commits + " commits, heap max "
                    + (Runtime.getRuntime().maxMemory() >> 20) + " MB, budget " + (budget >> 20) + " MB");
        }
    }

    private static void commit(CommitFixture f, ChannelBuffer buffer) {
        PendingCommit cut = buffer.cut();
        if (!ShardWatermarks.commit(f.table, cut, MANIFESTS)) {
            throw new IllegalStateException("the commit did not land");
        }
        buffer.committed(cut);
    }
}
