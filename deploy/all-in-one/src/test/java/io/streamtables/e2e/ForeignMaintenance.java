package io.streamtables.e2e;

import java.io.IOException;
import java.util.HashSet;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FanoutDataWriter;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * What an engine's maintenance does to a delivered table, as the README once advised (Spark's
 * {@code rewrite_data_files}, then {@code expire_snapshots(retain_last => 1)}), with Iceberg's own API: every data
 * file rewritten into one per partition in a commit that carries no summary of ours, then every snapshot but the
 * last expired.
 */
final class ForeignMaintenance {

    private ForeignMaintenance() {
    }

    /** Retried on a conflict with the service's commits, as engines do. */
    static void compactAndExpire(Table table) throws IOException {
        retried(() -> compact(table));
        retried(() -> {
            table.refresh();
            table.expireSnapshots().expireOlderThan(System.currentTimeMillis() + 1).retainLast(1).commit();
        });
    }

    private interface Step {
        void run() throws IOException;
    }

    private static void retried(Step step) throws IOException {
        for (int attempt = 1;; attempt++) {
            try {
                step.run();
                return;
            } catch (CommitFailedException e) {
                if (attempt == 10) {
                    throw e;
                }
            }
        }
    }

    private static void compact(Table table) throws IOException {
        table.refresh();
        Set<DataFile> old = new HashSet<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(task -> old.add(task.file()));
        }
        GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table)
                .dataFileFormat(FileFormat.PARQUET).build();
        OutputFileFactory files = OutputFileFactory.builderFor(table, 1, System.nanoTime())
                .format(FileFormat.PARQUET).build();
        FanoutDataWriter<Record> writer = new FanoutDataWriter<>(writers, files, table.io(), Long.MAX_VALUE);
        PartitionKey partition = new PartitionKey(table.spec(), table.schema());
        InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
        try (writer; CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
            for (Record row : rows) {
                partition.partition(wrapper.wrap(row));
                writer.write(row, table.spec(), partition);
            }
        }
        table.newRewrite().rewriteFiles(old, Set.copyOf(writer.result().dataFiles())).commit();
    }
}
