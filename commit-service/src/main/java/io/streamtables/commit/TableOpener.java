package io.streamtables.commit;

import io.streamtables.catalog.DeliveryTables;
import io.streamtables.catalog.IncompatibleTableException;
import io.streamtables.channel.Channel;
import java.util.Locale;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchTableException;

/** Opens a channel's table, creating the namespace and the table on the first delivery (SPEC S7). */
final class TableOpener {

    /** SPEC S5: files roll at 128 MiB. */
    static final long TARGET_FILE_SIZE_BYTES = 128L * 1024 * 1024;

    private TableOpener() {
    }

    /**
     * @throws TableNotOwnedException when a table of that name exists that this channel did not create
     * @throws IncompatibleTableException when the table's partitioning was changed outside the service
     */
    static Table open(Catalog catalog, Channel channel, Schema schema) {
        Table table;
        try {
            table = owned(catalog.loadTable(channel.table()), channel);
        } catch (NoSuchTableException e) {
            table = create(catalog, channel, schema);
        }
        String problem = DeliveryTables.partitionProblem(table, channel.partitionSource());
        if (problem != null) {
            throw new IncompatibleTableException(problem);
        }
        return table;
    }

    private static Table create(Catalog catalog, Channel channel, Schema schema) {
        if (catalog instanceof SupportsNamespaces namespaces
                && !namespaces.namespaceExists(channel.table().namespace())) {
            try {
                namespaces.createNamespace(channel.table().namespace());
            } catch (AlreadyExistsException raced) {
                // another instance created it first
            }
        }
        try {
            return catalog.buildTable(channel.table(), schema)
                    .withPartitionSpec(PartitionSpec.builderFor(schema).hour(channel.partitionSource()).build())
                    .withProperties(properties(channel))
                    .create();
        } catch (AlreadyExistsException raced) {
            return owned(catalog.loadTable(channel.table()), channel);
        }
    }

    static Map<String, String> properties(Channel channel) {
        return Map.of(
                TableProperties.FORMAT_VERSION, "2",
                TableProperties.DEFAULT_FILE_FORMAT, "parquet",
                TableProperties.PARQUET_COMPRESSION, parquetCodec(channel.compression()),
                TableProperties.AVRO_COMPRESSION, "snappy",
                TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, Long.toString(TARGET_FILE_SIZE_BYTES),
                // our own loop retries commits, re-checking the watermarks (ShardWatermarks.commit)
                TableProperties.COMMIT_NUM_RETRIES, "0",
                // a commit per freshness interval writes a metadata file each time: keep only the last
                // write.metadata.previous-versions-max (100), as Iceberg advises for streaming writers
                TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true",
                // a column whose dictionary passes 64 KiB is written plain: a streaming table keeps a writer open
                // per partition, and unbounded dictionaries of unique values (ids, URLs) held most of the heap and
                // of the write CPU (bench: +50 % rows/s, files no larger; docs/BENCHMARKS.md)
                TableProperties.PARQUET_DICT_SIZE_BYTES, "65536",
                DeliveryTables.CHANNEL_ARN_PROPERTY, channel.arn());
    }

    static String parquetCodec(String compression) {
        return switch (compression.toUpperCase(Locale.ROOT)) {
            case "NONE" -> "uncompressed";
            case "SNAPPY" -> "snappy";
            default -> "zstd";
        };
    }

    private static Table owned(Table table, Channel channel) {
        String problem = DeliveryTables.notOwnedProblem(table, channel.arn());
        if (problem != null) {
            throw new TableNotOwnedException(problem);
        }
        return table;
    }

    static final class TableNotOwnedException extends IllegalStateException {
        TableNotOwnedException(String message) {
            super(message);
        }
    }
}
