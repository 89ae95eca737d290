package io.streamtables.maintenance;

import io.streamtables.config.MaintenanceConfig;
import io.streamtables.watermarks.ManifestWorkers;
import io.streamtables.watermarks.ShardWatermarks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Types;

/**
 * A channel's kind of table (hour partitions, Iceberg's commit retry off) in a JDBC catalog on SQLite with a local
 * warehouse, filled by delivery commits of small Parquet files through {@link ShardWatermarks}, as the commit stage
 * makes them.
 */
final class MaintenanceFixture implements AutoCloseable {

    /** The commits' manifest threads, shared by the tests of this JVM (daemon threads). */
    static final ManifestWorkers MANIFESTS = ManifestWorkers.start(2);

    static final String SHARD = "shardId-000000000001";
    static final String STREAM = "arn:aws:kinesis:us-east-1:000000000000:stream/orders";
    /** The stream the channel was created again on: its shards have the first stream's ids. */
    static final String STREAM_B = "arn:aws:kinesis:us-east-1:000000000000:stream/orders-b";
    static final TableIdentifier TABLE = TableIdentifier.of("sales", "orders");
    static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "ts", Types.TimestampType.withZone()),
            Types.NestedField.optional(3, "note", Types.StringType.get()));
    private static final Logger ICEBERG_LOG = quiet("org.apache");

    private static Logger quiet(String name) {
        Logger logger = Logger.getLogger(name);
        logger.setLevel(Level.WARNING);
        return logger;
    }

    final Catalog catalog;
    final Table table;
    final Path warehouse;
    private long sequence;
    private long nextId;

    MaintenanceFixture(Path dir) {
        warehouse = dir.resolve("warehouse");
        catalog = CatalogUtil.buildIcebergCatalog("test", Map.of(
                "type", "jdbc",
                "uri", "jdbc:sqlite:" + dir.resolve("catalog.db"),
                "jdbc.schema-version", "V1",
                "clients", "1",
                "warehouse", warehouse.toString(),
                "io-impl", "io.streamtables.catalog.LocalFileIO"), null);
        ((SupportsNamespaces) catalog).createNamespace(Namespace.of("sales"));
        table = catalog.buildTable(TABLE, SCHEMA)
                .withPartitionSpec(PartitionSpec.builderFor(SCHEMA).hour("ts").build())
                .withProperties(Map.of(
                        TableProperties.FORMAT_VERSION, "2",
                        TableProperties.COMMIT_NUM_RETRIES, "0",
                        TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, Long.toString(128L * 1024 * 1024)))
                .create();
    }

    /** Delivers {@code rows} rows of that hour in one small file, moving the shard's watermark. */
    DataFile deliver(OffsetDateTime hour, int rows) {
        DataFile file = write(hour, rows);
        commit(List.of(file));
        return file;
    }

    DataFile write(OffsetDateTime hour, int rows) {
        GenericFileWriterFactory writers = new GenericFileWriterFactory.Builder(table)
                .dataFileFormat(FileFormat.PARQUET).build();
        OutputFileFactory names = OutputFileFactory.builderFor(table, 1, nextId).format(FileFormat.PARQUET).build();
        PartitionKey key = new PartitionKey(table.spec(), table.schema());
        List<Record> records = new ArrayList<>();
        for (int i = 0; i < rows; i++) {
            GenericRecord r = GenericRecord.create(table.schema());
            r.setField("id", nextId++);
            r.setField("ts", hour.plusSeconds(i % 3600));
            r.setField("note", "n" + (nextId % 7));
            records.add(r);
        }
        key.partition(new InternalRecordWrapper(table.schema().asStruct()).wrap(records.get(0)));
        DataWriter<Record> writer = writers.newDataWriter(names.newOutputFile(table.spec(), key), table.spec(), key);
        try (writer) {
            records.forEach(writer::write);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return writer.toDataFile();
    }

    /** One delivery commit of the files, as the commit stage's (its watermark and cut id in the table). */
    void commit(List<DataFile> files) {
        commit(STREAM, files, Map.of());
    }

    /**
     * A delivery commit of {@code stream}'s shard with dead letters, staged in a file of the table's metadata folder
     * as the commit stage stages them (and not published: its writer crashed); returns the file.
     */
    Path stageDeadLetters(String stream) throws IOException {
        String location = ((org.apache.iceberg.HasTableOperations) table).operations()
                .metadataFileLocation("dead-letters-" + UUID.randomUUID() + ".json");
        Path file = Path.of(location.replaceFirst("^file:", ""));
        java.nio.file.Files.writeString(file, "[]");
        commit(stream, List.of(), Map.of(SHARD, location));
        return file;
    }

    private void commit(String stream, List<DataFile> files, Map<String, String> staged) {
        String expected = ShardWatermarks.committed(table, stream).get(SHARD);
        String advanced = Long.toString(++sequence);
        ShardWatermarks.commit(table, new ShardWatermarks.Cut() {
            private final String id = UUID.randomUUID().toString();

            @Override
            public String streamArn() {
                return stream;
            }

            @Override
            public String id() {
                return id;
            }

            @Override
            public List<DataFile> files() {
                return files;
            }

            @Override
            public Map<String, String> expected() {
                Map<String, String> m = new HashMap<>();
                m.put(SHARD, expected);
                return m;
            }

            @Override
            public Map<String, String> advanced() {
                return Map.of(SHARD, advanced);
            }

            @Override
            public Map<String, String> stagedDeadLetters() {
                return staged;
            }
        }, MANIFESTS);
    }

    String watermark() {
        return ShardWatermarks.committed(table, STREAM).get(SHARD);
    }

    /** Every row with the partition of the file holding it, sorted: values, count and partition at once. */
    List<String> rows() {
        table.refresh();
        List<String> rows = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                String partition = table.spec().partitionToPath(task.file().partition());
                try (CloseableIterable<Record> read = Parquet.read(table.io().newInputFile(task.file().location()))
                        .project(table.schema())
                        .createReaderFunc(s -> GenericParquetReaders.buildReader(table.schema(), s)).build()) {
                    read.forEach(r -> rows.add(r.getField("id") + "|" + r.getField("ts") + "|" + r.getField("note")
                            + "|" + partition));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        rows.sort(null);
        return rows;
    }

    /** Data files per partition path. */
    Map<String, Integer> filesPerPartition() {
        table.refresh();
        Map<String, Integer> files = new java.util.TreeMap<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(t -> files.merge(table.spec().partitionToPath(t.file().partition()), 1, Integer::sum));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    static OffsetDateTime hoursAgo(long hours) {
        return OffsetDateTime.now(ZoneOffset.UTC).withMinute(0).withSecond(0).withNano(0).minusHours(hours);
    }

    /** The service's defaults, as application.properties has them, with a few changed. */
    static MaintenanceConfig config(Map<String, Object> changed) {
        return new MaintenanceConfig() {
            @Override
            public boolean enabled() {
                return (Boolean) changed.getOrDefault("enabled", true);
            }

            @Override
            public Duration interval() {
                return (Duration) changed.getOrDefault("interval", Duration.ofMinutes(5));
            }

            @Override
            public int threads() {
                return 1;
            }

            @Override
            public Duration leaseDuration() {
                return (Duration) changed.getOrDefault("leaseDuration", Duration.ofMinutes(5));
            }

            @Override
            public Duration compactionGrace() {
                return Duration.ofMinutes(10);
            }

            @Override
            public int maxSmallFiles() {
                return (Integer) changed.getOrDefault("maxSmallFiles", 50);
            }

            @Override
            public int maxManifests() {
                return (Integer) changed.getOrDefault("maxManifests", 20);
            }

            @Override
            public Duration maxSnapshotAge() {
                return (Duration) changed.getOrDefault("maxSnapshotAge", Duration.ofHours(120));
            }

            @Override
            public int minSnapshotsToKeep() {
                return 1;
            }

            @Override
            public int maxSnapshots() {
                return (Integer) changed.getOrDefault("maxSnapshots", 2000);
            }

            @Override
            public Duration orphanAge() {
                return (Duration) changed.getOrDefault("orphanAge", Duration.ofHours(72));
            }

            @Override
            public Duration orphanInterval() {
                return Duration.ZERO;
            }

            @Override
            public Duration minOrphanAge() {
                return (Duration) changed.getOrDefault("minOrphanAge", Duration.ZERO);
            }

            @Override
            public Optional<Integer> recordExpirationDays() {
                return Optional.ofNullable((Integer) changed.get("recordExpirationDays"));
            }
        };
    }

    @Override
    public void close() throws Exception {
        if (catalog instanceof AutoCloseable c) {
            c.close();
        }
        ICEBERG_LOG.getName();
    }
}
