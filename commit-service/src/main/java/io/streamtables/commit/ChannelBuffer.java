package io.streamtables.commit;

import io.streamtables.bus.DlqBatch;
import io.streamtables.bus.ErrorCode;
import io.streamtables.bus.Reject;
import io.streamtables.bus.RewindException;
import io.streamtables.bus.RowChunk;
import io.streamtables.channel.Channel;
import io.streamtables.schema.SchemaEvolution;
import io.streamtables.watermarks.ShardProgress;
import io.streamtables.watermarks.ShardWatermarks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.UnaryOperator;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.ClusteredDataWriter;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PropertyUtil;

/**
 * A channel's open buffer: Parquet writers per hour partition (one file per partition per cut, rolled at the
 * target size) and each shard's progress, which decides what of a chunk is taken ({@link ShardProgress#accept}).
 *
 * <p>The partitions are spread over {@code lanes} writers (partition hash modulo lanes: a partition has one writer,
 * so still one file per cut), each behind a lock of its own: chunks of different shards encode Parquet at the same
 * time, on as many cores as there are lanes, where one lock used to serialize all of it.
 *
 * <p>Locks. An append holds the read side of {@code cutLock} from its continuity check to its watermark; a cut and
 * the discards take the write side, so they never see rows written and the watermark not advanced, or the reverse.
 * An append also holds its shard's monitor throughout (a shard's chunks stay in order) and takes the lanes' locks
 * one at a time. The buffer's own monitor guards the shards' progress and the counters; it is never held while
 * waiting for another lock, so {@link #due} and {@link #oldestArrivalMillis} never wait for a Parquet write.
 *
 * <p>Schemas. Rows are written with {@code writing}, the table's schema when the writers were opened;
 * only {@link #evolved} and {@link #discardAll} refresh the table, under the write side, and reopen the writers on its
 * new schema when it changed.
 */
final class ChannelBuffer {

    private final Channel channel;
    private final BufferLimits limits;
    private final Table table;
    /** The schema rows are written with, and the writers made for it: replaced when the table's schema changes. */
    private Schema writing;
    private GenericFileWriterFactory writerFactory;
    private final long targetFileSize;
    private final Map<String, ShardProgress> shards = new HashMap<>();
    private Lane[] lanes;
    private final ReentrantReadWriteLock cutLock = new ReentrantReadWriteLock();
    private final AtomicInteger writers = new AtomicInteger();
    /** The partitions written since the last cut: each has an open writer, or a closed file of a wide chunk. */
    private final Set<PartitionKey> open = ConcurrentHashMap.newKeySet();
    /**
     * Each row schema met (one per schema version the records named) and how the table takes it: as it is through
     * a {@link RowProjection}, after it evolves, or not at all. Cleared when the table evolves.
     */
    private final Map<Types.StructType, Fit> fits = new ConcurrentHashMap<>();
    /** Row schemas whose evolution Iceberg refused: dead letters for good. */
    private final Map<Types.StructType, Fit> refused = new ConcurrentHashMap<>();
    /** Files of a chunk that spanned more partitions than the limit, written one partition at a time. */
    private final List<DataFile> closedFiles = new ArrayList<>();
    /** A chunk was refused: cut at the next tick, whatever the freshness. */
    private boolean full;
    private long oldestMillis = -1;
    private long oldestArrivalMillis;
    private long rows;
    private long rejects;
    /** What this buffer's open writers took of the stage's {@link BufferedBytes}: given back when they close. */
    private final AtomicLong bytes = new AtomicLong();

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

    ChannelBuffer(Channel channel, Table table, Map<String, String> committed) {
        this(channel, table, committed, BufferLimits.DEFAULT);
    }

    /**
     * @param table the channel's table; the rows of each chunk become its rows by name ({@link RowProjection})
     * @param committed the watermarks of the channel's stream in the table, by shard id
     */
    ChannelBuffer(Channel channel, Table table, Map<String, String> committed, BufferLimits limits) {
        this.channel = channel;
        this.limits = limits;
        this.table = table;
        openWriters();
        this.targetFileSize = PropertyUtil.propertyAsLong(table.properties(),
                TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, TableOpener.TARGET_FILE_SIZE_BYTES);
        committed.forEach((shard, watermark) -> shards.put(shard, new ShardProgress(watermark)));
    }

    /** Writers for the table's current schema; the fits met so far were the old schema's. */
    private void openWriters() {
        writing = table.schema();
        fits.clear();
        writerFactory = new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET)
                .dataSchema(writing).build();
        lanes = new Lane[table.spec().isUnpartitioned() ? 1 : Math.max(1, limits.lanes())];
        for (int i = 0; i < lanes.length; i++) {
            lanes[i] = new Lane(i);
        }
    }

    /** How the table takes rows of one schema: {@code toTable} when it does as it is, else why not. */
    private record Fit(UnaryOperator<Record> toTable, SchemaEvolution.Comparison comparison) {
    }

    private Fit fit(Types.StructType rows) {
        Fit refusal = refused.get(rows);
        if (refusal != null) {
            return refusal;
        }
        return fits.computeIfAbsent(rows, struct -> {
            SchemaEvolution.Comparison c = SchemaEvolution.compare(writing, struct,
                    SchemaEvolution.partitionSources(table.spec()));
            return new Fit(c.differences().isEmpty() ? RowProjection.of(new Schema(struct.fields()), writing) : null, c);
        });
    }

    /**
     * The table must evolve to take the chunk's rows: nothing of the chunk was taken. Offer it again once
     * the table has evolved ({@link #evolved}).
     */
    static final class EvolutionNeededException extends IllegalStateException {
        final Schema rows;

        EvolutionNeededException(Schema rows, String change) {
            super("table must evolve to take rows of a new schema version: " + change);
            this.rows = rows;
        }
    }

    /**
     * The table's schema changed (it evolved): the files written so far are closed as they are (they go into the
     * next cut; their rows read as null in the new columns) and new rows are written with the new schema. A file that
     * does not close discards the open buffer, as a failed cut does: its rows are read again.
     *
     * @param refusal rows of this schema are dead letters from now on (Iceberg refused the evolution), or null
     * @param why the refusal's reason
     */
    void evolved(Types.StructType refusal, String why) {
        cutLock.writeLock().lock();
        try {
            synchronized (this) {
                if (refusal != null) {
                    refused.put(refusal, new Fit(null, new SchemaEvolution.Comparison(List.of(
                            new SchemaEvolution.Difference(ErrorCode.INCOMPATIBLE_TYPE_CHANGE, "", null, why)))));
                }
                table.refresh();
                if (table.schema().schemaId() == writing.schemaId()) {
                    return; // nothing changed (another chunk asked for what is done): the open files stay open
                }
                try {
                    closeWriters(closedFiles);
                } catch (IOException | RuntimeException e) {
                    abortWriters();
                    shards.values().forEach(ShardProgress::discardOpen);
                }
                openWriters();
            }
        } finally {
            cutLock.writeLock().unlock();
        }
    }

    /**
     * The chunk is of another stream than the buffer's channel reads (the channel was deleted and created again on
     * another stream, whose shards have the same ids): nothing of it was taken, so every position a cut of this
     * buffer moves is its stream's.
     */
    static final class OtherStreamException extends IllegalStateException {
        OtherStreamException(String message) {
            super(message);
        }
    }

    /** The buffer is at a limit ({@link BufferLimits}): cut it, then offer the chunk again. */
    static final class FullException extends IllegalStateException {
        FullException(String message) {
            super(message);
        }
    }

    /**
     * Buffers a chunk.
     *
     * @throws RewindException when the chunk does not continue the shard's buffer (records are missing)
     * @throws FullException when the buffer is at a limit; nothing of the chunk was taken
     * @throws OtherStreamException when the chunk is of another stream than the channel's; nothing was taken
     */
    void append(RowChunk chunk) {
        if (!channel.reads(chunk.token().streamArn())) {
            throw new OtherStreamException("a chunk of " + chunk.token().streamArn() + " for the buffer of "
                    + channel.arn() + ", which reads " + channel.streamArn());
        }
        String shardId = chunk.token().shardId();
        cutLock.readLock().lock();
        try {
            ShardProgress shard;
            synchronized (this) {
                shard = shards.computeIfAbsent(shardId, s -> new ShardProgress(null));
            }
            synchronized (shard) {
                append(chunk, shard);
            }
        } finally {
            cutLock.readLock().unlock();
        }
    }

    private void append(RowChunk chunk, ShardProgress shard) {
        ShardProgress.Accepted accepted;
        synchronized (this) {
            accepted = shard.accept(chunk.token());
        }
        if (accepted.replay()) {
            return; // what the table or the buffer already holds
        }
        long oldestArrival = 0;
        List<Record> fresh = new ArrayList<>(chunk.rows().size());
        List<Reject> rejected = new ArrayList<>();
        Types.StructType struct = null;
        Fit fit = null;
        for (RowChunk.Row row : chunk.rows()) {
            if (accepted.takes(row.sequenceNumber())) {
                if (row.value().struct() != struct) { // a chunk's rows share their schema's struct, as a rule
                    struct = row.value().struct();
                    fit = fit(struct);
                }
                if (fit.toTable() != null) {
                    fresh.add(fit.toTable().apply(row.value()));
                } else if (fit.comparison().evolves()) {
                    throw new EvolutionNeededException(new Schema(struct.fields()),
                            fit.comparison().differences().get(0).message());
                } else {
                    rejected.add(incompatible(chunk, row, fit.comparison().incompatible()));
                }
                oldestArrival = older(oldestArrival, row.arrivalMillis());
            }
        }
        for (Reject reject : chunk.rejects()) {
            if (accepted.takes(reject.sequenceNumber())) {
                rejected.add(reject);
                oldestArrival = older(oldestArrival, reject.arrivalMillis());
            }
        }
        long size = BufferedBytes.estimate(fresh);
        PartitionedRows partitioned = PartitionedRows.of(fresh, table.spec(), writing);
        switch (admission(partitioned, rejected, size)) {
            case FULL -> {
                synchronized (this) {
                    full = true;
                }
                throw new FullException("the buffer of " + channel.arn() + " is at a limit");
            }
            // the writers a chunk opens read Hadoop's defaults once, not from its jar each time
            case WIDE -> HadoopDefaults.run(() -> writeWide(partitioned.byPartition()));
            case TAKE -> HadoopDefaults.run(() -> write(partitioned, chunk.token().shardId().hashCode()));
        }
        synchronized (this) {
            rejected.forEach(shard::reject);
            rows += fresh.size();
            rejects += rejected.size();
            oldestArrivalMillis = older(oldestArrivalMillis, oldestArrival);
            shard.advanceTo(chunk.token().lastSequence());
            if (oldestMillis < 0) {
                oldestMillis = System.currentTimeMillis();
            }
        }
    }

    /** A row of a schema version the table cannot take: a dead letter whose code names the change. */
    private Reject incompatible(RowChunk chunk, RowChunk.Row row, SchemaEvolution.Difference change) {
        return new Reject(channel.streamArn().toString(), chunk.token().shardId(), row.sequenceNumber(),
                row.arrivalMillis(), change.code(), "the record's schema version does not fit table " + table.name()
                        + ": " + change.message(), change.pointer());
    }

    private enum Admission { TAKE, WIDE, FULL }

    /**
     * Whether the chunk fits: FULL when it would take the buffer past a limit (its records, its open partitions, or
     * the stage's bytes in open writers, of which it then takes its rows' share); an empty buffer takes any chunk (at
     * most 1 MiB of records), one past the partitions or the bytes WIDE, one partition at a time, each file closed at
     * once, after which the buffer is full.
     */
    private Admission admission(PartitionedRows fresh, List<Reject> rejected, long size) {
        long held;
        synchronized (this) {
            held = rows + rejects;
            if (full && held > 0) {
                return Admission.FULL;
            }
        }
        boolean empty = held == 0 && open.isEmpty();
        if (!empty && held + fresh.rows().size() + rejected.size() > limits.maxRecords()) {
            return Admission.FULL;
        }
        long added = fresh.partitions().stream().filter(p -> !open.contains(p)).count();
        if (added > limits.maxOpenPartitions() - open.size()
                || !limits.bytes().fits(size + added * BufferedBytes.WRITER_BYTES)) {
            return empty ? Admission.WIDE : Admission.FULL;
        }
        take(size);
        return Admission.TAKE;
    }

    /** Takes {@code n} bytes of the stage's budget for this buffer's open writers. */
    private void take(long n) {
        limits.bytes().take(n);
        bytes.addAndGet(n);
    }

    /** A chunk over the partition limit, into an empty buffer: one partition at a time, each file closed at once. */
    private void writeWide(Map<PartitionKey, List<Record>> byPartition) {
        OutputFileFactory files = OutputFileFactory.builderFor(table, lanes.length + 1, writers.incrementAndGet())
                .format(FileFormat.PARQUET).build();
        ClusteredDataWriter<Record> writer = new ClusteredDataWriter<>(writerFactory, files, table.io(), targetFileSize);
        try {
            byPartition.forEach((partition, rows) -> rows.forEach(row -> writer.write(row, table.spec(), partition)));
            writer.close();
        } catch (IOException | RuntimeException e) {
            try {
                writer.close(); // the files written so far, then removed: the chunk comes back whole
                writer.result().dataFiles().forEach(f -> table.io().deleteFile(f.location()));
            } catch (IOException | RuntimeException ignored) {
                // orphans either way
            }
            throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
        }
        synchronized (this) {
            closedFiles.addAll(writer.result().dataFiles());
            full = true;
        }
        open.addAll(byPartition.keySet());
    }

    private static long older(long oldest, long arrivalMillis) {
        return arrivalMillis > 0 && (oldest == 0 || arrivalMillis < oldest) ? arrivalMillis : oldest;
    }

    /**
     * Writes rows into their partitions' lanes: first each lane whose lock is free, then waits for the others. A
     * shard starts at a lane of its own, so two shards do not queue for the same lane first.
     */
    private void write(PartitionedRows fresh, int start) {
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

    /** Arrival time of the oldest record buffered and not cut, 0 when there is none. */
    synchronized long oldestArrivalMillis() {
        return oldestArrivalMillis;
    }

    /**
     * True once the oldest buffered record is as old as the channel's freshness interval, counted from its
     * arrival in the stream (SPEC S3), and the buffer has been open a quarter of the interval: a backlog of old
     * records is cut at that pace, not at every tick.
     */
    synchronized boolean due(long now, int freshnessSeconds) {
        if (oldestMillis < 0) {
            return false;
        }
        if (full) {
            return true;
        }
        long interval = freshnessSeconds * 1000L;
        long oldest = oldestArrivalMillis > 0 ? Math.min(oldestArrivalMillis, oldestMillis) : oldestMillis;
        return now - oldest >= interval && now - oldestMillis >= interval / 4;
    }

    /** Closes the open files and takes everything buffered as one pending commit. */
    PendingCommit cut() {
        cutLock.writeLock().lock();
        try {
            synchronized (this) {
                return cutLocked();
            }
        } finally {
            cutLock.writeLock().unlock();
        }
    }

    private PendingCommit cutLocked() {
        List<DataFile> files = new ArrayList<>(closedFiles);
        closedFiles.clear();
        open.clear();
        full = false;
        try {
            closeWriters(files);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<DlqBatch> deadLetters = new ArrayList<>();
        Map<String, String> expected = new HashMap<>();
        Map<String, String> advanced = new HashMap<>();
        shards.forEach((shardId, shard) -> {
            if (shard.hasUncommitted()) {
                expected.put(shardId, shard.committed());
                advanced.put(shardId, shard.high());
            }
            deadLetters.addAll(DeadLetterKeys.batches(channel, shard.takeForCut(), limits.maxDeadLetterBatchBytes()));
        });
        PendingCommit pending = new PendingCommit(channel.arn(), channel.streamArn().toString(),
                UUID.randomUUID().toString(), files, deadLetters, null, expected, advanced, rows, rejects, oldestMillis,
                oldestArrivalMillis);
        oldestMillis = -1;
        oldestArrivalMillis = 0;
        rows = 0;
        rejects = 0;
        return pending;
    }

    /** Closes the lanes' open writers, adding their files to {@code files}. */
    private void closeWriters(List<DataFile> files) throws IOException {
        for (Lane lane : lanes) {
            if (lane.writer != null) {
                lane.writer.close();
                files.addAll(lane.writer.result().dataFiles());
                lane.writer = null;
            }
        }
        giveBytesBack();
    }

    /** The writers closed: their pages are in files now. */
    private void giveBytesBack() {
        limits.bytes().give(bytes.getAndSet(0));
    }

    synchronized void committed(PendingCommit pending) {
        pending.advanced().forEach((shardId, watermark) -> shards.get(shardId).committedUpTo(watermark));
    }

    /**
     * Discards the open buffer after a failure that lost buffered rows; a cut waiting for its commit is kept.
     * The readers are rewound by the next chunk of each shard, which no longer continues the buffer.
     */
    void discard() {
        cutLock.writeLock().lock();
        try {
            synchronized (this) {
                abortWriters();
                shards.values().forEach(ShardProgress::discardOpen);
            }
        } finally {
            cutLock.writeLock().unlock();
        }
    }

    /**
     * Discards the open buffer and the pending cut, which will not be committed (its compare-and-set failed), and
     * takes the watermarks another instance committed meanwhile (a shard moved to it, then back, with the bus'
     * partitions): resuming from stale ones would re-read what the table holds and fail the next commit again.
     */
    void discardAll() {
        cutLock.writeLock().lock();
        try {
            synchronized (this) {
                abortWriters();
                shards.values().forEach(ShardProgress::discardAll);
                table.refresh();
                if (table.schema().schemaId() != writing.schemaId()) { // another instance evolved it meanwhile
                    openWriters();
                }
                ShardWatermarks.committed(table, channel.streamArn().toString()).forEach((shardId, watermark) ->
                        shards.computeIfAbsent(shardId, s -> new ShardProgress(watermark)).committedUpTo(watermark));
            }
        } finally {
            cutLock.writeLock().unlock();
        }
    }

    private void abortWriters() {
        closedFiles.forEach(f -> table.io().deleteFile(f.location()));
        closedFiles.clear();
        open.clear();
        full = false;
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
        oldestMillis = -1;
        oldestArrivalMillis = 0;
        rows = 0;
        rejects = 0;
    }
}
