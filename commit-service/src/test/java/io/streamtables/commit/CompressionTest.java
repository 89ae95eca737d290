package io.streamtables.commit;

import static io.streamtables.commit.CommitFixture.MANIFESTS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.watermarks.ShardWatermarks;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * SPEC S5: a channel's {@code CompressionType} is its data files' codec, every column chunk of them, and the rows
 * read back whole. The files themselves are checked, not only the table property.
 */
class CompressionTest {

    @TempDir
    Path dir;

    @ParameterizedTest
    @CsvSource({"NONE, UNCOMPRESSED", "SNAPPY, SNAPPY", "ZSTD, ZSTD"})
    void eachCompressionTypeIsTheCodecOfEveryColumnChunk(String compression, CompressionCodecName codec)
            throws Exception {
        try (CommitFixture f = new CommitFixture(dir, compression)) {
            ChannelBuffer buffer = f.buffer();
            buffer.append(f.chunk(null, List.of(f.row("1", "2024-05-01T10:05:00Z"), f.row("2", "2024-05-01T11:10:00Z"),
                    f.row("3", "2024-05-01T11:20:00Z")), List.of()));
            PendingCommit cut = buffer.cut();
            assertTrue(ShardWatermarks.commit(f.table, cut, MANIFESTS));
            assertEquals(List.of(1L, 2L, 3L), f.ids());

            assertFalse(cut.files().isEmpty());
            for (DataFile file : cut.files()) {
                Set<CompressionCodecName> codecs = new HashSet<>();
                try (ParquetFileReader reader = ParquetFileReader.open(
                        new LocalInputFile(Path.of(file.location().replaceFirst("^file:", ""))))) {
                    for (BlockMetaData block : reader.getFooter().getBlocks()) {
                        for (ColumnChunkMetaData column : block.getColumns()) {
                            codecs.add(column.getCodec());
                        }
                    }
                }
                assertEquals(Set.of(codec), codecs, file.location());
            }
        }
    }
}
