package io.streamtables.watermarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.avro.Avro;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.avro.PlannedDataReader;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.types.Types;

/**
 * A table partitioned by hour, as a channel's, in a JDBC catalog on SQLite in a temp folder, and cuts of real data
 * files (Avro, which Iceberg's core reads and writes: the rule does not care for the format) whose rows' ids say
 * which cut landed.
 */
final class WatermarksFixture implements AutoCloseable {

    /** The commits' manifest threads, shared by the tests of this JVM (daemon threads). */
    static final ManifestWorkers MANIFESTS = ManifestWorkers.start(2);

    static final String SHARD = "shardId-000000000001";
    static final String SHARD_2 = "shardId-000000000002";
    static final String STREAM = "arn:aws:kinesis:us-east-1:000000000000:stream/orders";
    /** The stream a channel was created again on: its name starts as the first one's. */
    static final String STREAM_B = "arn:aws:kinesis:us-east-1:000000000000:stream/orders-b";
    static final TableIdentifier TABLE = TableIdentifier.of("sales", "orders");

    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "ts", Types.TimestampType.withZone()));
    private static final OffsetDateTime HOUR = OffsetDateTime.parse("2024-05-01T10:00:00Z");

    // Iceberg logs every commit and scan at INFO; keep the build output readable (held: the level must stick).
    private static final Logger ICEBERG_LOG = quiet("org.apache");

    private static Logger quiet(String name) {
        Logger logger = Logger.getLogger(name);
        logger.setLevel(Level.WARNING);
        return logger;
    }

    /** A cut as the commit stage makes one. */
    record TestCut(String streamArn, String id, List<DataFile> files, Map<String, String> expected,
            Map<String, String> advanced, Map<String, String> stagedDeadLetters) implements ShardWatermarks.Cut {

        /** The same cut, its dead letters staged in {@code file}. */
        TestCut withDeadLetters(String shard, String file) {
            Map<String, String> staged = new HashMap<>(stagedDeadLetters);
            staged.put(shard, file);
            return new TestCut(streamArn, id, files, expected, advanced, staged);
        }
    }

    final Catalog catalog;
    final Table table;

    WatermarksFixture(Path dir) {
        catalog = CatalogUtil.buildIcebergCatalog("delivery", Map.of(
                "type", "jdbc",
                "uri", "jdbc:sqlite:" + dir + "/c.db",
                "warehouse", dir + "/wh",
                "io-impl", "org.apache.iceberg.inmemory.InMemoryFileIO",
                "jdbc.schema-version", "V1",
                "clients", "1"), null); // SQLite takes one writer at a time
        ((SupportsNamespaces) catalog).createNamespace(Namespace.of("sales"));
        table = catalog.buildTable(TABLE, SCHEMA)
                .withPartitionSpec(PartitionSpec.builderFor(SCHEMA).hour("ts").build())
                .withProperty(TableProperties.COMMIT_NUM_RETRIES, "0") // as the channels' tables
                .create();
    }

    /**
     * A cut of {@link #SHARD} from watermark {@code from} (null: none yet) to {@code to}, holding rows of these ids.
     */
    TestCut cut(String from, String to, long... ids) {
        return cut(STREAM, from, to, ids);
    }

    /** The same, of {@link #SHARD} of {@code stream}. */
    TestCut cut(String stream, String from, String to, long... ids) {
        Map<String, String> expected = new HashMap<>();
        expected.put(SHARD, from);
        return cut(stream, expected, Map.of(SHARD, to), ids);
    }

    TestCut cut(Map<String, String> expected, Map<String, String> advanced, long... ids) {
        return cut(STREAM, expected, advanced, ids);
    }

    TestCut cut(String stream, Map<String, String> expected, Map<String, String> advanced, long... ids) {
        List<DataFile> files = ids.length == 0 ? List.of() : List.of(dataFile(ids));
        return new TestCut(stream, UUID.randomUUID().toString(), files, expected, advanced, Map.of());
    }

    /** The data files of the table's current snapshot. */
    java.util.Set<DataFile> dataFiles() {
        table.refresh();
        java.util.Set<DataFile> files = new java.util.HashSet<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(t -> files.add(t.file()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /** A data file of rows with these ids, in the cuts' partition: what a compaction writes. */
    DataFile dataFile(long... ids) {
        GenericRecord row = GenericRecord.create(SCHEMA);
        PartitionKey partition = new PartitionKey(table.spec(), SCHEMA);
        partition.partition(new InternalRecordWrapper(SCHEMA.asStruct()).wrap(row.copy("id", 0L, "ts", HOUR)));
        String path = table.locationProvider().newDataLocation(table.spec(), partition,
                UUID.randomUUID() + ".avro");
        DataWriter<Record> writer;
        try {
            writer = Avro.writeData(table.io().newOutputFile(path)).schema(SCHEMA)
                    .createWriterFunc(org.apache.iceberg.data.avro.DataWriter::create)
                    .withSpec(table.spec()).withPartition(partition).build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try (writer) {
            for (long id : ids) {
                writer.write(row.copy("id", id, "ts", HOUR));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return writer.toDataFile();
    }

    /**
     * The ids in the table, read back from its data files (with Iceberg's Avro reader: its generic reader needs the
     * Parquet format on the classpath, which common does not have).
     */
    List<Long> ids() {
        table.refresh();
        List<Long> ids = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                try (CloseableIterable<Record> rows = Avro.read(table.io().newInputFile(task.file().location()))
                        .project(SCHEMA).createResolvingReader(PlannedDataReader::create).build()) {
                    rows.forEach(r -> ids.add((Long) r.getField("id")));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ids.sort(null);
        return ids;
    }

    Map<String, String> watermarks() {
        return watermarks(STREAM);
    }

    /** The watermarks of {@code stream}'s shards. */
    Map<String, String> watermarks(String stream) {
        table.refresh();
        return new TreeMap<>(ShardWatermarks.committed(table, stream));
    }

    /** The staged dead letters of {@code stream}'s shards. */
    Map<String, String> stagedDeadLetters(String stream) {
        table.refresh();
        return new TreeMap<>(ShardWatermarks.stagedDeadLetters(table, stream));
    }

    /** Every staged file the checkpoint names, of every stream. */
    java.util.Set<String> stagedDeadLetterFiles() {
        table.refresh();
        return ShardWatermarks.stagedDeadLetterFiles(table);
    }

    @Override
    public void close() throws Exception {
        if (catalog instanceof AutoCloseable c) {
            c.close();
        }
    }
}
