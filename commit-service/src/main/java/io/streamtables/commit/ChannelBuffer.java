package io.streamtables.commit;

import io.streamtables.bus.DlqBatch;
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
import java.util.UUID;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * A channel's open buffer: its Parquet writers ({@link LaneWriters}: one file per partition per cut, rolled at the
 * target size), how the table takes each row schema met ({@link SchemaFits}), and each shard's progress, which decides
 * what of a chunk is taken ({@link ShardProgress#accept}).
 *
 * <p>Locks, taken in this order. An append holds the read side of {@code cutLock} from its continuity check to its
 * watermark; a cut, the discards and a schema change take the write side, so they never see rows written and the
 * watermark not advanced, or the reverse. An append also holds its shard's monitor throughout (a shard's chunks stay
 * in order) and takes the lanes' locks one at a time. The buffer's own monitor guards the shards' progress and the
 * counters; it is never held while waiting for another lock, so {@link #due} and {@link #oldestArrivalMillis} never
 * wait for an append's Parquet write. docs/DESIGN.md "A channel's commit" has the whole picture.
 *
 * <p>Schemas. Rows are written with the table's schema when the writers were opened; only {@link #evolved} and
 * {@link #discardAll} refresh the table, under the write side, and reopen the writers on its new schema when it
 * changed.
 */
final class ChannelBuffer {

    private final Channel channel;
    private final BufferLimits limits;
    private final Table table;
    private final Map<String, ShardProgress> shards = new HashMap<>();
    private final ReentrantReadWriteLock cutLock = new ReentrantReadWriteLock();
    private final LaneWriters writers;
    private final SchemaFits fits;
    /** A chunk was refused: cut at the next tick, whatever the freshness. */
    private boolean full;
    private long oldestMillis = -1;
    private long oldestArrivalMillis;
    private long rows;
    private long rejects;

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
        this.writers = new LaneWriters(table, limits.lanes(), limits.bytes());
        this.fits = new SchemaFits(table);
        openWriters();
        committed.forEach((shard, watermark) -> shards.put(shard, new ShardProgress(watermark)));
    }

    /** Writers for the table's current schema; the fits met so far were the old schema's. */
    private void openWriters() {
        Schema schema = table.schema();
        fits.writeWith(schema);
        writers.writeWith(schema);
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
                    fits.refuse(refusal, why);
                }
                table.refresh();
                if (table.schema().schemaId() == fits.writing().schemaId()) {
                    return; // nothing changed (another chunk asked for what is done): the open files stay open
                }
                try {
                    writers.closeOpen();
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
        SchemaFits.Fit fit = null;
        for (RowChunk.Row row : chunk.rows()) {
            if (accepted.takes(row.sequenceNumber())) {
                if (row.value().struct() != struct) { // a chunk's rows share their schema's struct, as a rule
                    struct = row.value().struct();
                    fit = fits.fit(struct);
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
        PartitionedRows partitioned = PartitionedRows.of(fresh, table.spec(), fits.writing());
        switch (admission(partitioned, rejected, size)) {
            case FULL -> {
                synchronized (this) {
                    full = true;
                }
                throw new FullException("the buffer of " + channel.arn() + " is at a limit");
            }
            // the writers a chunk opens read Hadoop's defaults once, not from its jar each time
            case WIDE -> {
                HadoopDefaults.run(() -> writers.writeWide(partitioned.byPartition()));
                synchronized (this) {
                    full = true; // the wide chunk's files alone make the cut
                }
            }
            case TAKE -> HadoopDefaults.run(() -> writers.write(partitioned, chunk.token().shardId().hashCode()));
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
        boolean empty = held == 0 && writers.isEmpty();
        if (!empty && held + fresh.rows().size() + rejected.size() > limits.maxRecords()) {
            return Admission.FULL;
        }
        long added = writers.newPartitions(fresh.partitions());
        if (added > limits.maxOpenPartitions() - writers.openPartitions()
                || !limits.bytes().fits(size + added * BufferedBytes.WRITER_BYTES)) {
            return empty ? Admission.WIDE : Admission.FULL;
        }
        writers.take(size);
        return Admission.TAKE;
    }

    private static long older(long oldest, long arrivalMillis) {
        return arrivalMillis > 0 && (oldest == 0 || arrivalMillis < oldest) ? arrivalMillis : oldest;
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
        full = false;
        List<DataFile> files;
        try {
            files = writers.closeAll();
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
                if (table.schema().schemaId() != fits.writing().schemaId()) { // another instance evolved it meanwhile
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
        writers.abort();
        full = false;
        oldestMillis = -1;
        oldestArrivalMillis = 0;
        rows = 0;
        rejects = 0;
    }
}
