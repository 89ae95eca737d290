package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * SPEC S7: the table a channel creates is as the managed feature's document lists it (format v2, Parquet, ZSTD data
 * files, Snappy metadata), which the files themselves say, not only the table properties; and it keeps to the
 * Iceberg spec that Apache Iceberg 1.9.0 reads: 1.9.0's own library reads its rows and snapshots. One delivery, in
 * two commits, on Iceberg's REST catalog server, serves both tests.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TableFormatIT {

    /** From deploy/all-in-one or from the modules that run it too (with {@code project.root} set). */
    private static final Path READER = Path.of(System.getProperty("project.root", "../.."))
            .resolve("scripts/iceberg-1.9-read.sh").toAbsolutePath().normalize();

    private DeliveryFixture fixture;
    private Table table;
    /** Installs Iceberg 1.9.0's jars on first use, while the service delivers. */
    private Process install;

    @BeforeAll
    void deliver() throws Exception {
        fixture = new DeliveryFixture("format", DeliveryFixture.CatalogKind.REST, 1);
        install = new ProcessBuilder(READER.toString(), "--install").redirectErrorStream(true)
                .redirectOutput(fixture.workDir.resolve("iceberg-1.9-install.log").toFile()).start();
        try (AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start()) {
            fixture.awaitActive(app);
            Events events = new Events(19, 1);
            for (int commit = 0; commit < 2; commit++) {
                fixture.produce(events.next(300, 50));
                fixture.awaitDelivered(120, app);
            }
        }
        DeliveryFixture.Summary summary = fixture.verify();
        assertEquals(588, summary.rows());
        assertTrue(summary.commits() >= 2, summary.toString());
        table = fixture.catalog().loadTable(fixture.table);
    }

    @AfterAll
    void close() {
        if (install != null) {
            install.destroy();
        }
        if (fixture != null) {
            fixture.close();
        }
    }

    @Test
    void aDeliveredTableIsV2ParquetWithZstdDataAndSnappyManifests() throws Exception {
        assertEquals(2, ((HasTableOperations) table).operations().current().formatVersion());
        assertEquals("parquet", table.properties().get(TableProperties.DEFAULT_FILE_FORMAT));
        assertEquals("zstd", table.properties().get(TableProperties.PARQUET_COMPRESSION));
        assertEquals("snappy", table.properties().get(TableProperties.MANIFEST_COMPRESSION));

        int files = 0;
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                DataFile file = task.file();
                assertEquals(FileFormat.PARQUET, file.format(), file.location());
                assertEquals(Set.of(CompressionCodecName.ZSTD), parquetCodecs(file.location()), file.location());
                files++;
            }
        }
        assertTrue(files > 0);
        List<ManifestFile> manifests = table.currentSnapshot().allManifests(table.io());
        assertFalse(manifests.isEmpty());
        for (ManifestFile manifest : manifests) {
            try (InputStream in = table.io().newInputFile(manifest.path()).newStream();
                    DataFileStream<Object> avro = new DataFileStream<>(in, new GenericDatumReader<>())) {
                assertEquals("snappy", avro.getMetaString("avro.codec"), manifest.path());
            }
        }
    }

    @Test
    void apacheIceberg190ReadsItsRowsAndSnapshots() throws Exception {
        List<String> read = iceberg190Read();
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);
        List<String> expected = new ArrayList<>();
        expected.add("format-version 2");
        for (Snapshot snapshot : table.snapshots()) {
            expected.add("snapshot " + snapshot.snapshotId());
        }
        List<String> rows = new ArrayList<>();
        for (DeliveryFixture.Sent sent : fixture.sent.values()) {
            if (sent.event().valid()) {
                // as Iceberg19Read writes a row: timestamps as UTC instants
                Map<String, Object> row = new LinkedHashMap<>(sent.event().row());
                row.put("event_time", row.get("event_time").toString());
                rows.add("row " + json.writeValueAsString(row));
            }
        }
        rows.sort(null);
        expected.addAll(rows);
        for (int i = 0; i < Math.min(expected.size(), read.size()); i++) {
            assertEquals(expected.get(i), read.get(i), "line " + (i + 1) + " of Iceberg 1.9.0's read");
        }
        assertEquals(expected.size(), read.size(), "lines of Iceberg 1.9.0's read");
    }

    /** The codecs of the data file's column chunks, from its footer. */
    private Set<CompressionCodecName> parquetCodecs(String location) throws Exception {
        Path local = Files.createTempFile(fixture.workDir, "data-", ".parquet");
        try (InputStream in = table.io().newInputFile(location).newStream()) {
            Files.copy(in, local, StandardCopyOption.REPLACE_EXISTING);
        }
        Set<CompressionCodecName> codecs = new HashSet<>();
        try (ParquetFileReader reader = ParquetFileReader.open(new LocalInputFile(local))) {
            for (BlockMetaData block : reader.getFooter().getBlocks()) {
                for (ColumnChunkMetaData column : block.getColumns()) {
                    codecs.add(column.getCodec());
                }
            }
        }
        return codecs;
    }

    /** scripts/iceberg-1.9-read.sh's output lines. */
    private List<String> iceberg190Read() throws Exception {
        assertTrue(install.waitFor(5, TimeUnit.MINUTES), "Iceberg 1.9.0's jars still installing");
        assertEquals(0, install.exitValue(), () -> "Iceberg 1.9.0's jars not installed: "
                + tail(fixture.workDir.resolve("iceberg-1.9-install.log")));
        Path log = fixture.workDir.resolve("iceberg-1.9-read.log");
        ProcessBuilder builder = new ProcessBuilder(READER.toString(),
                Peers.REST_CATALOG, fixture.table.namespace().level(0), fixture.table.name())
                .redirectError(log.toFile());
        builder.environment().put("S3_ENDPOINT", Peers.S3);
        Process process = builder.start();
        List<String> lines;
        try (InputStream out = process.getInputStream()) {
            lines = new String(out.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
        assertTrue(process.waitFor(5, TimeUnit.MINUTES), "Iceberg 1.9.0's read still running");
        assertEquals(0, process.exitValue(), () -> "Iceberg 1.9.0 could not read the table: " + tail(log));
        return lines;
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }
}
