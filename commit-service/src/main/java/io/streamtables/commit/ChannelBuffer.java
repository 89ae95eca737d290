package io.streamtables.commit;

import io.streamtables.bus.DlqBatch;
import io.streamtables.bus.Reject;
import io.streamtables.bus.RewindException;
import io.streamtables.bus.RowChunk;
import io.streamtables.bus.Sequences;
import io.streamtables.catalog.DeliveryTables;
import io.streamtables.channel.Channel;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.util.PropertyUtil;

/**
 * A channel's open buffer: Parquet writers per hour partition (one file per partition per cut, rolled at the
 * target size) and each shard's progress. Chunks of a shard must continue what is buffered; replays are dropped.
 */
final class ChannelBuffer {

    private final Channel channel;
    private final Table table;
    private final GenericFileWriterFactory writerFactory;
    private final PartitionKey partitionKey;
    private final InternalRecordWrapper wrapper;
    private final long targetFileSize;
    private final Map<String, ShardProgress> shards = new HashMap<>();
    private FanoutDataWriter<Record> writer;
    private long oldestMillis = -1;
    private long oldestArrivalMillis;
    private long rows;
    private long rejects;
    private int cuts;

    ChannelBuffer(Channel channel, Table table, Map<String, String> committed) {
        this.channel = channel;
        this.table = table;
        this.writerFactory = new GenericFileWriterFactory.Builder(table).dataFileFormat(FileFormat.PARQUET).build();
        this.partitionKey = new PartitionKey(table.spec(), table.schema());
        this.wrapper = new InternalRecordWrapper(table.schema().asStruct());
        this.targetFileSize = PropertyUtil.propertyAsLong(table.properties(),
                TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, DeliveryTable.TARGET_FILE_SIZE_BYTES);
        committed.forEach((shard, watermark) -> shards.put(shard, new ShardProgress(watermark)));
    }

    /**
     * Buffers a chunk.
     *
     * @throws RewindException when the chunk does not continue the shard's buffer (records are missing)
     */
    synchronized void append(RowChunk chunk) {
        String shardId = chunk.token().shardId();
        ShardProgress shard = shards.computeIfAbsent(shardId, s -> new ShardProgress(null));
        String before = shard.high();
        if (Sequences.atOrBelow(chunk.token().lastSequence(), before)) {
            return; // a replay of what the table or the buffer already holds
        }
        String previous = chunk.token().previousSequence();
        boolean continues = Objects.equals(previous, before)
                || previous == null // read from the activation time: overlaps anything, replays are dropped below
                || (before != null && Sequences.atOrBelow(previous, before));
        if (!continues) {
            throw new RewindException(shardId, before);
        }
        for (RowChunk.Row row : chunk.rows()) {
            if (!Sequences.atOrBelow(row.sequenceNumber(), before)) {
                write(row.value());
                arrived(row.arrivalMillis());
            }
        }
        for (Reject reject : chunk.rejects()) {
            if (!Sequences.atOrBelow(reject.sequenceNumber(), before)) {
                shard.reject(reject);
                rejects++;
                arrived(reject.arrivalMillis());
            }
        }
        shard.advanceTo(chunk.token().lastSequence());
        if (oldestMillis < 0) {
            oldestMillis = System.currentTimeMillis();
        }
    }

    private void arrived(long arrivalMillis) {
        if (arrivalMillis > 0 && (oldestArrivalMillis == 0 || arrivalMillis < oldestArrivalMillis)) {
            oldestArrivalMillis = arrivalMillis;
        }
    }

    /** Arrival time of the oldest record buffered and not cut, 0 when there is none. */
    synchronized long oldestArrivalMillis() {
        return oldestArrivalMillis;
    }

    private void write(Record row) {
        if (writer == null) {
            OutputFileFactory files = OutputFileFactory.builderFor(table, 1, ++cuts).format(FileFormat.PARQUET).build();
            writer = new FanoutDataWriter<>(writerFactory, files, table.io(), targetFileSize);
        }
        partitionKey.partition(wrapper.wrap(row));
        writer.write(row, table.spec(), partitionKey);
        rows++;
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
        long interval = freshnessSeconds * 1000L;
        long oldest = oldestArrivalMillis > 0 ? Math.min(oldestArrivalMillis, oldestMillis) : oldestMillis;
        return now - oldest >= interval && now - oldestMillis >= interval / 4;
    }

    /** Closes the open files and takes everything buffered as one pending commit. */
    synchronized PendingCommit cut() {
        List<DataFile> files = new ArrayList<>();
        if (writer != null) {
            try {
                writer.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            files.addAll(writer.result().dataFiles());
            writer = null;
        }
        List<DlqBatch> deadLetters = new ArrayList<>();
        Map<String, String> expected = new HashMap<>();
        Map<String, String> advanced = new HashMap<>();
        shards.forEach((shardId, shard) -> {
            if (shard.hasUncommitted()) {
                expected.put(shardId, shard.committed());
                advanced.put(shardId, shard.high());
            }
            List<Reject> taken = shard.takeForCut();
            if (!taken.isEmpty()) {
                deadLetters.add(new DlqBatch(channel.arn(), DeadLetterKeys.key(channel, taken.get(0)), taken));
            }
        });
        PendingCommit pending = new PendingCommit(files, deadLetters, expected, advanced, rows, rejects, oldestMillis,
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
    synchronized void discard() {
        abortWriter();
        shards.values().forEach(ShardProgress::discardOpen);
    }

    /**
     * Discards the open buffer and the pending cut, which will not be committed (its compare-and-set failed), and
     * takes the watermarks another instance committed meanwhile (a shard moved to it, then back, with the bus'
     * partitions): resuming from stale ones would re-read what the table holds and fail the next commit again.
     */
    synchronized void discardAll() {
        abortWriter();
        shards.values().forEach(ShardProgress::discardAll);
        table.refresh();
        DeliveryTables.watermarks(table).forEach((shardId, watermark) ->
                shards.computeIfAbsent(shardId, s -> new ShardProgress(watermark)).committedUpTo(watermark));
    }

    private void abortWriter() {
        if (writer != null) {
            try {
                writer.close();
                writer.result().dataFiles().forEach(f -> table.io().deleteFile(f.location()));
            } catch (IOException | RuntimeException ignored) {
                // the files are orphans either way
            }
            writer = null;
        }
        oldestMillis = -1;
        oldestArrivalMillis = 0;
        rows = 0;
        rejects = 0;
    }
}
