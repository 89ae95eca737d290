package io.streamtables.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.bus.RowChunk;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lanes' writers: one file per partition per cut, the stage's bytes given back, nothing left by an abort. */
class LaneWritersTest {

    @TempDir
    Path dir;

    private CommitFixture f;
    private final BufferedBytes budget = new BufferedBytes(1L << 30);
    private LaneWriters writers;
    private SchemaFits fits;

    @BeforeEach
    void setUp() {
        f = new CommitFixture(dir);
        writers = new LaneWriters(f.table, 4, budget);
        writers.writeWith(f.table.schema());
        fits = new SchemaFits(f.table);
        fits.writeWith(f.table.schema());
    }

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    /** Rows first..last, spread over {@code hours} hour partitions. */
    private PartitionedRows rows(long first, long last, int hours) {
        List<Record> records = new ArrayList<>();
        for (long s = first; s <= last; s++) {
            RowChunk.Row row = f.row(Long.toString(s), String.format("2024-05-01T%02d:00:00Z", s % hours));
            records.add(fits.fit(row.value().struct()).toTable().apply(row.value()));
        }
        return PartitionedRows.of(records, f.table.spec(), fits.writing());
    }

    @Test
    void eachPartitionIsOneFileWhicheverShardWroteIt() throws Exception {
        assertTrue(writers.isEmpty());
        writers.write(rows(1, 30, 3), "shardId-000000000000".hashCode());
        writers.write(rows(31, 60, 3), "shardId-000000000001".hashCode());
        assertEquals(3, writers.openPartitions());
        assertEquals(3 * BufferedBytes.WRITER_BYTES, budget.held(), "a writer's bytes for each partition");
        assertEquals(2, writers.newPartitions(rows(61, 65, 5).partitions()), "two hours not written yet");

        List<DataFile> files = writers.closeAll();
        assertEquals(3, files.size());
        assertEquals(60, files.stream().mapToLong(DataFile::recordCount).sum());
        assertEquals(0, budget.held(), "the bytes given back once the files closed");
        assertTrue(writers.isEmpty());
    }

    /**
     * SPEC S5: a partition's file rolls at the table's target size (128 MiB as created, TableOpener.properties; an
     * eighth of a MiB here, so that a few MiB show it) and every row lands in one of its files once.
     */
    @Test
    void aPartitionsFileRollsAtTheTargetSize() throws Exception {
        assertEquals(Long.toString(128L * 1024 * 1024),
                f.table.properties().get(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES), "as created");
        long target = 128 * 1024;
        f.table.updateProperties().set(TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, Long.toString(target)).commit();
        LaneWriters small = new LaneWriters(f.table, 1, budget);
        small.writeWith(f.table.schema());
        Random random = new Random(5);
        int count = 20_000;
        List<Record> records = new ArrayList<>();
        for (int s = 1; s <= count; s++) {
            byte[] noise = new byte[48]; // incompressible: the file grows with the rows
            random.nextBytes(noise);
            RowChunk.Row row = f.row(Integer.toString(s), "2024-05-01T10:00:00Z", HexFormat.of().formatHex(noise));
            records.add(fits.fit(row.value().struct()).toTable().apply(row.value()));
        }
        small.write(PartitionedRows.of(records, f.table.spec(), fits.writing()), 0);
        List<DataFile> files = small.closeAll();
        long bytes = files.stream().mapToLong(DataFile::fileSizeInBytes).sum();
        assertTrue(bytes > 8 * target, bytes + " bytes: enough to roll several times");
        assertTrue(files.size() >= bytes / target / 2, files.size() + " files for " + bytes + " bytes");
        for (DataFile file : files.subList(0, files.size() - 1)) {
            assertTrue(file.fileSizeInBytes() < 2 * target, file.fileSizeInBytes() + " bytes in one file");
        }
        assertEquals(count, files.stream().mapToLong(DataFile::recordCount).sum());
    }

    @Test
    void filesClosedBeforeTheCutAreTheCutsToo() throws Exception {
        writers.write(rows(1, 10, 2), 0);
        writers.closeOpen(); // the table evolved: the files of the old schema close as they are
        writers.writeWith(f.table.schema());
        writers.writeWide(rows(11, 20, 2).byPartition());
        List<DataFile> files = writers.closeAll();
        assertEquals(4, files.size(), "two of the old writers, two of the wide chunk");
        assertEquals(20, files.stream().mapToLong(DataFile::recordCount).sum());
    }

    @Test
    void anAbortLeavesNoFile() throws Exception {
        writers.write(rows(1, 10, 2), 0);
        writers.writeWide(rows(11, 20, 3).byPartition());
        List<DataFile> wide = new ArrayList<>(writers.closeAll());
        writers.write(rows(21, 30, 2), 0);
        writers.writeWide(rows(31, 40, 3).byPartition());
        writers.abort();
        assertEquals(0, budget.held());
        assertTrue(writers.isEmpty());
        assertTrue(writers.closeAll().isEmpty(), "nothing left to cut");
        wide.forEach(file -> assertTrue(f.table.io().newInputFile(file.location()).exists(), "a cut's file stays"));
        try (var found = java.nio.file.Files.walk(dir)) {
            long parquet = found.filter(p -> p.toString().endsWith(".parquet")).count();
            assertEquals(wide.size(), parquet, "the aborted writers' files are removed");
        }
        assertFalse(wide.isEmpty());
    }
}
