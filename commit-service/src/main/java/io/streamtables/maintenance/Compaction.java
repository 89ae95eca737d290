package io.streamtables.maintenance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.ClusteredDataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.Parquet;

/**
 * Rewrites a partition's small files into files of the table's target size. A partition is compacted once its hour
 * is closed (past by the channel's freshness and a grace: late records still land, and are compacted by a later
 * run) and it holds two small files or more, or, while open, once it holds more than {@code maxSmallFiles}; a file
 * holding more rows than the smaller ones together waits for them while records still come ({@link #tiered}). The
 * rewrite is one {@link RewriteFiles} commit per run (or per batch of the target size), validated by Iceberg against
 * the snapshot it read: rows, values and partition stay what they were; a partition with delete files or files not
 * in Parquet is left alone.
 */
final class Compaction {

    /** Iceberg's own rule of thumb (rewrite_data_files' min-file-size-bytes): below 3/4 of the target is small. */
    static final double SMALL = 0.75;
    static final String SUMMARY_PROPERTY = "delivery.maintenance";

    /** The small files of one partition, to be rewritten together. */
    record Group(int specId, StructLike partition, String path, List<DataFile> files) {
        long bytes() {
            return files.stream().mapToLong(DataFile::fileSizeInBytes).sum();
        }
    }

    /** What a compaction did. */
    record Result(int partitions, int filesRewritten, int filesWritten, long bytesRewritten) {
        static final Result NONE = new Result(0, 0, 0, 0);

        Result plus(Result o) {
            return new Result(partitions + o.partitions, filesRewritten + o.filesRewritten,
                    filesWritten + o.filesWritten, bytesRewritten + o.bytesRewritten);
        }
    }

    private Compaction() {
    }

    /** The partitions of the table's current snapshot due for a compaction. */
    static List<Group> plan(Table table, MaintenanceSettings settings, long nowMillis, long freshnessMillis) {
        Snapshot snapshot = table.currentSnapshot();
        if (snapshot == null) {
            return List.of();
        }
        PartitionSpec spec = table.spec();
        long small = (long) (settings.targetFileSizeBytes() * SMALL);
        Map<String, Group> groups = new LinkedHashMap<>();
        Set<String> untouchable = new HashSet<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshot.snapshotId())
                .ignoreResiduals().planFiles()) {
            for (FileScanTask task : tasks) {
                DataFile file = task.file();
                String path = file.specId() + "/" + table.specs().get(file.specId()).partitionToPath(file.partition());
                if (!task.deletes().isEmpty() || file.format() != FileFormat.PARQUET || file.specId() != spec.specId()) {
                    untouchable.add(path);
                } else if (file.fileSizeInBytes() < small) {
                    groups.computeIfAbsent(path, p -> new Group(file.specId(), file.copy().partition(), p,
                            new ArrayList<>())).files().add(file.copy());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<Long, Long> addedAt = new java.util.HashMap<>(); // sequence number → its snapshot's time
        table.snapshots().forEach(snap -> addedAt.put(snap.sequenceNumber(), snap.timestampMillis()));
        List<Group> due = new ArrayList<>();
        for (Group all : groups.values()) {
            if (untouchable.contains(all.path())) {
                continue;
            }
            // tiers while late records keep coming; once the partition is quiet, all its small files together
            boolean quiet = addedAt(all.files(), addedAt) + settings.compactionGraceMillis() <= nowMillis;
            Group group = quiet ? all : new Group(all.specId(), all.partition(), all.path(), tiered(all.files()));
            long closedAt = hourEnd(spec, group.partition()) + freshnessMillis + settings.compactionGraceMillis();
            boolean closed = closedAt <= nowMillis;
            if ((closed && group.files().size() >= 2) || group.files().size() > settings.maxSmallFiles()) {
                due.add(group);
            }
        }
        return due;
    }

    /**
     * Size tiers, while a partition still takes records: a file holding more rows than all the smaller ones together
     * is left out, so that a partition taking late records every minute does not copy its whole compacted file again
     * each run (each row is rewritten a logarithmic number of times; a few files of growing sizes, all merged once it
     * is quiet for the grace). Rows, not bytes: a compacted file is far smaller than the small files it replaced
     * (each of those carries its own footer and column chunks), and by bytes it would be rewritten every run.
     */
    static List<DataFile> tiered(List<DataFile> files) {
        List<DataFile> bySize = new ArrayList<>(files);
        bySize.sort(java.util.Comparator.comparingLong(DataFile::recordCount).reversed());
        long rest = bySize.stream().mapToLong(DataFile::recordCount).sum();
        int first = 0;
        while (first < bySize.size()) {
            long largest = bySize.get(first).recordCount();
            rest -= largest;
            if (largest <= rest) {
                break;
            }
            first++;
        }
        return bySize.subList(first, bySize.size());
    }

    /** When the newest of the files was committed; 0 when its snapshot expired (long ago). */
    private static long addedAt(List<DataFile> files, Map<Long, Long> snapshotTimes) {
        long newest = 0;
        for (DataFile f : files) {
            Long sequence = f.dataSequenceNumber();
            newest = Math.max(newest, sequence == null ? 0 : snapshotTimes.getOrDefault(sequence, 0L));
        }
        return newest;
    }

    /** When the partition's hour ends; never for a spec without an hour field. */
    static long hourEnd(PartitionSpec spec, StructLike partition) {
        List<PartitionField> fields = spec.fields();
        for (int i = 0; i < fields.size(); i++) {
            if ("hour".equals(fields.get(i).transform().toString())) {
                Integer hour = partition.get(i, Integer.class);
                return hour == null ? Long.MAX_VALUE : (hour + 1L) * 3_600_000L;
            }
        }
        return Long.MAX_VALUE;
    }

    /**
     * Rewrites the groups' files, committed as one {@link RewriteFiles} per batch of about the target file size read
     * (one commit per run while records stream in: each commit rewrites the table's metadata file and may make a
     * delivery commit retry), unless another commit removed any of a batch's files first (then the batch's files
     * are deleted and its partitions wait for the next run).
     *
     * @param stillHeld renews the lease before each partition
     */
    static Result rewrite(Table table, List<Group> groups, long snapshotId, FencedCommit fence,
            MaintenanceSettings settings, Runnable stillHeld) {
        Result done = Result.NONE;
        List<Group> batch = new ArrayList<>();
        long bytes = 0;
        for (int i = 0; i < groups.size(); i++) {
            batch.add(groups.get(i));
            bytes += groups.get(i).bytes();
            if (bytes >= settings.targetFileSizeBytes() || i == groups.size() - 1) {
                done = done.plus(rewriteBatch(table, batch, snapshotId, fence, settings, stillHeld));
                batch.clear();
                bytes = 0;
            }
        }
        return done;
    }

    private static Result rewriteBatch(Table table, List<Group> batch, long snapshotId, FencedCommit fence,
            MaintenanceSettings settings, Runnable stillHeld) {
        GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table)
                .dataFileFormat(FileFormat.PARQUET).build();
        OutputFileFactory names = OutputFileFactory.builderFor(table, 0, System.nanoTime() & 0x7fffffff)
                .operationId("compaction-" + UUID.randomUUID()).format(FileFormat.PARQUET).build();
        // one writer for the batch: its partitions come one after the other, as a clustered writer wants them
        ClusteredDataWriter<Record> writer = new ClusteredDataWriter<>(writers, names, table.io(),
                settings.targetFileSizeBytes());
        List<DataFile> written;
        try {
            try {
                for (Group group : batch) {
                    stillHeld.run();
                    PartitionSpec spec = table.specs().get(group.specId());
                    for (DataFile file : group.files()) {
                        try (CloseableIterable<Record> rows = Parquet.read(table.io().newInputFile(file.location()))
                                .project(table.schema())
                                .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(table.schema(),
                                        fileSchema))
                                .build()) {
                            rows.forEach(row -> writer.write(row, spec, group.partition()));
                        }
                    }
                }
            } finally {
                writer.close();
            }
            written = writer.result().dataFiles();
        } catch (IOException | RuntimeException e) {
            deleteWritten(table, writer);
            throw e instanceof IOException io ? new UncheckedIOException(io) : (RuntimeException) e;
        }
        stillHeld.run();
        try {
            fence.commit(table, transaction -> {
                RewriteFiles rewrite = transaction.newRewrite().validateFromSnapshot(snapshotId)
                        .set(SUMMARY_PROPERTY, "compaction");
                batch.forEach(group -> group.files().forEach(rewrite::deleteFile));
                written.forEach(rewrite::addFile);
                rewrite.commit();
            });
        } catch (CommitFailedException | ValidationException | FencedCommit.FencedException refused) {
            written.forEach(f -> table.io().deleteFile(f.location()));
            throw refused;
        } catch (RuntimeException unknown) {
            // the outcome may be unknown (a JDBC catalog reports a lost connection, an interrupt as other errors):
            // the files are deleted only if the table does not hold them; when even that cannot be read, they stay
            // for the orphan cleanup
            try {
                table.refresh();
                if (!holdsAny(table, written)) {
                    written.forEach(f -> table.io().deleteFile(f.location()));
                }
            } catch (RuntimeException unreadable) {
                unknown.addSuppressed(unreadable);
            }
            throw unknown;
        }
        return new Result(batch.size(), batch.stream().mapToInt(g -> g.files().size()).sum(), written.size(),
                batch.stream().mapToLong(Group::bytes).sum());
    }

    private static boolean holdsAny(Table table, List<DataFile> files) {
        Set<String> locations = new HashSet<>();
        files.forEach(f -> locations.add(f.location()));
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                if (locations.contains(task.file().location())) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The files a failed rewrite wrote, those closed so far included. */
    private static void deleteWritten(Table table, ClusteredDataWriter<Record> writer) {
        try {
            writer.result().dataFiles().forEach(f -> table.io().deleteFile(f.location()));
        } catch (RuntimeException notClosed) {
            // the writer failed before it could say what it wrote: the orphan cleanup takes those files
        }
    }
}
