package io.streamtables.commit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.ClusteredDataWriter;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.util.PropertyUtil;

/**
 * The Parquet writers of one channel's open buffer. The partitions are spread over lanes (partition hash modulo lanes:
 * a partition has one writer, so one file per partition per cut), each behind a lock of its own, so that chunks of
 * different shards encode Parquet side by side, on as many cores as there are lanes. Beside them: the files of wide
 * chunks, written one partition at a time and closed at once, the partitions written since the last cut, and the bytes
 * the open writers took of the stage's {@link BufferedBytes}.
 *
 * <p>{@link #write} and {@link #writeWide} run side by side (appends of different shards); {@link #writeWith},
 * {@link #closeOpen}, {@link #closeAll} and {@link #abort} only while no write is under way ({@link ChannelBuffer}'s
 * cut lock keeps the appends out).
 */
final class LaneWriters {

    private final Table table;
    private final BufferedBytes budget;
    private final long targetFileSize;
    private final int maxLanes;
    private final AtomicInteger writers = new AtomicInteger();
    /** The partitions written since the last cut: each has an open writer, or a closed file of a wide chunk. */
    private final Set<PartitionKey> open = ConcurrentHashMap.newKeySet();
    /** Files closed before the cut: of wide chunks, and of the writers of a schema the table evolved from. */
    private final List<DataFile> closedFiles = Collections.synchronizedList(new ArrayList<>());
    /** What the open writers took of the stage's budget: given back when they close. */
    private final AtomicLong bytes = new AtomicLong();
    private GenericFileWriterFactory writerFactory;
    private Lane[] lanes;

    /** The Parquet writers of the partitions that hash to this lane, behind one lock. */
    private final class Lane {
        final ReentrantLock lock = new ReentrantLock();
        final int index;
        FanoutDataWriter<Record> writer;

        Lane(int index) {
            this.index = index;
        }

        /** Called with {@link #lock} held. */
        void write(PartitionedRows rows) {
            if (writer == null) {
                OutputFileFactory files = OutputFileFactory.builderFor(table, index + 1, writers.incrementAndGet())
                        .format(FileFormat.PARQUET).build();
                writer = new FanoutDataWriter<>(writerFactory, files, table.io(), targetFileSize);
            }
            for (int i = 0; i < rows.rows().size(); i++) {
                PartitionKey partition = rows.keys().get(i);
                if (!open.contains(partition) && open.add(partition)) {
                    take(BufferedBytes.WRITER_BYTES); // a new writer
                }
                writer.write(rows.rows().get(i), table.spec(), partition);
            }
        }
    }

    /** @param lanes how many lanes a partitioned table's writers are spread over (an unpartitioned table has one) */
    LaneWriters(Table table, int lanes, BufferedBytes budget) {
        this.table = table;
        this.budget = budget;
        this.maxLanes = Math.max(1, lanes);
        this.targetFileSize = PropertyUtil.propertyAsLong(table.properties(),
                TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, TableOpener.TARGET_FILE_SIZE_BYTES);
    }

    /** Writers for rows of this schema from now on; what the lanes wrote before must be closed or aborted first. */
    void writeWith(Schema schema) {
        writerFactory = new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET)
                .dataSchema(schema).build();
        lanes = new Lane[table.spec().isUnpartitioned() ? 1 : maxLanes];
        for (int i = 0; i < lanes.length; i++) {
            lanes[i] = new Lane(i);
        }
    }

    /** Whether nothing was written since the last cut. */
    boolean isEmpty() {
        return open.isEmpty();
    }

    int openPartitions() {
        return open.size();
    }

    /** How many of these partitions have no writer or file yet. */
    long newPartitions(Collection<PartitionKey> partitions) {
        return partitions.stream().filter(p -> !open.contains(p)).count();
    }

    /** Takes {@code n} bytes of the stage's budget for the open writers. */
    void take(long n) {
        budget.take(n);
        bytes.addAndGet(n);
    }

    /**
     * Writes rows into their partitions' lanes: first each lane whose lock is free, then waits for the others. A
     * shard starts at a lane of its own, so two shards do not queue for the same lane first.
     */
    void write(PartitionedRows fresh, int start) {
        if (fresh.isEmpty()) {
            return;
        }
        if (lanes.length == 1) {
            writeLocked(lanes[0], fresh, true);
            return;
        }
        List<PartitionedRows> byLane = fresh.split(lanes.length);
        int first = Math.floorMod(start, lanes.length);
        boolean[] done = new boolean[lanes.length];
        for (int pass = 0; pass < 2; pass++) {
            for (int k = 0; k < lanes.length; k++) {
                int i = (first + k) % lanes.length;
                if (!done[i] && !byLane.get(i).isEmpty()) {
                    done[i] = writeLocked(lanes[i], byLane.get(i), pass == 1);
                }
            }
        }
    }

    /** Writes under the lane's lock; when not asked to wait, only if the lock is free. True once written. */
    private static boolean writeLocked(Lane lane, PartitionedRows rows, boolean wait) {
        if (wait) {
            lane.lock.lock();
        } else if (!lane.lock.tryLock()) {
            return false;
        }
        try {
            lane.write(rows);
            return true;
        } finally {
            lane.lock.unlock();
        }
    }

    /**
     * A chunk over the partition limit: one partition at a time, each file closed at once. A failure removes the
     * files written so far: the chunk comes back whole.
     */
    void writeWide(Map<PartitionKey, List<Record>> byPartition) {
        OutputFileFactory files = OutputFileFactory.builderFor(table, lanes.length + 1, writers.incrementAndGet())
                .format(FileFormat.PARQUET).build();
        ClusteredDataWriter<Record> writer = new ClusteredDataWriter<>(writerFactory, files, table.io(), targetFileSize);
        try {
            byPartition.forEach((partition, rows) -> rows.forEach(row -> writer.write(row, table.spec(), partition)));
            writer.close();
        } catch (IOException | RuntimeException e) {
            try {
                writer.close(); // the files written so far, then removed
                writer.result().dataFiles().forEach(f -> table.io().deleteFile(f.location()));
            } catch (IOException | RuntimeException ignored) {
                // orphans either way
            }
            throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
        }
        closedFiles.addAll(writer.result().dataFiles());
        open.addAll(byPartition.keySet());
    }

    /** Closes the lanes' open writers; their files wait with the closed ones for the next {@link #closeAll}. */
    void closeOpen() throws IOException {
        closeLanes(closedFiles);
    }

    /** Closes every open writer: the files written since the last cut, which the cut commits. */
    List<DataFile> closeAll() throws IOException {
        List<DataFile> files = new ArrayList<>(closedFiles);
        closedFiles.clear();
        open.clear();
        closeLanes(files);
        return files;
    }

    private void closeLanes(List<DataFile> files) throws IOException {
        for (Lane lane : lanes) {
            if (lane.writer != null) {
                lane.writer.close();
                files.addAll(lane.writer.result().dataFiles());
                lane.writer = null;
            }
        }
        giveBytesBack();
    }

    /** Removes every file written since the last cut, closed or open. */
    void abort() {
        closedFiles.forEach(f -> table.io().deleteFile(f.location()));
        closedFiles.clear();
        open.clear();
        for (Lane lane : lanes) {
            if (lane.writer != null) {
                try {
                    lane.writer.close();
                    lane.writer.result().dataFiles().forEach(f -> table.io().deleteFile(f.location()));
                } catch (IOException | RuntimeException ignored) {
                    // the files are orphans either way
                }
                lane.writer = null;
            }
        }
        giveBytesBack();
    }

    /** The writers closed: their pages are in files now. */
    private void giveBytesBack() {
        budget.give(bytes.getAndSet(0));
    }
}
