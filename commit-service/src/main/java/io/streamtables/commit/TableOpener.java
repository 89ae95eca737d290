package io.streamtables.commit;

import io.streamtables.catalog.DeliveryTables;
import io.streamtables.watermarks.Checkpoint;
import io.streamtables.watermarks.IncompatibleTableException;
import io.streamtables.channel.Channel;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.UpdateProperties;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.types.Types;
import org.jboss.logging.Logger;

/** Opens a channel's table, creating the namespace and the table on the first delivery (SPEC S7). */
final class TableOpener {

    private static final Logger LOG = Logger.getLogger(TableOpener.class);

    /** Marks a table an {@link OwnCreation} created and {@link #finishSetup} has not finished yet. */
    static final String SETUP_PROPERTY = "delivery.setup";
    static final String PENDING = "pending";

    /** SPEC S5: files roll at 128 MiB. */
    static final long TARGET_FILE_SIZE_BYTES = 128L * 1024 * 1024;

    private TableOpener() {
    }

    /** {@link #open(Catalog, boolean, Channel, Schema, UUID, OwnCreation)} with the catalog creating the table. */
    static Table open(Catalog catalog, boolean sharedCatalog, Channel channel, Schema schema, UUID versionId) {
        return open(catalog, sharedCatalog, channel, schema, versionId, null);
    }

    /**
     * The channel's table: created on first delivery, or an existing one the channel accepts, which it
     * then marks as its own ({@link DeliveryTables#ADOPTED_PROPERTY}).
     *
     * @param own what creates the table instead of the catalog ({@link S3TablesCreation}), or null: the catalog
     * @param sharedCatalog whether other table buckets share the catalog ({@link DeliveryTables#deliveryProblem})
     * @throws TableNotOwnedException when a table of that name exists that this channel may not deliver into
     * @throws TableRefusedException when the catalog refuses to create the namespace or the table
     * @throws IncompatibleTableException when the table was changed outside the service so that it no longer takes
     *     the channel's files
     */
    static Table open(Catalog catalog, boolean sharedCatalog, Channel channel, Schema schema, UUID versionId,
            OwnCreation own) {
        Table table;
        try {
            table = catalog.loadTable(channel.table());
        } catch (NoSuchTableException e) {
            table = create(catalog, channel, schema, versionId, own);
        }
        if (PENDING.equals(table.properties().get(SETUP_PROPERTY)) && DeliveryTables.owned(table, channel.arn())) {
            table = finishSetup(catalog, channel, schema, versionId);
        }
        boolean owned = DeliveryTables.owned(table, channel.arn());
        String problem = DeliveryTables.deliveryProblem(table, channel, schema, sharedCatalog);
        if (problem != null) {
            throw owned ? new IncompatibleTableException(problem) : new TableNotOwnedException(problem);
        }
        if (!owned) {
            table.updateProperties().set(Checkpoint.CHANNEL_ARN_PROPERTY, channel.arn())
                    .set(DeliveryTables.ADOPTED_PROPERTY, "true").commit();
            LOG.infof("Channel %s delivers into existing table %s, partitioned by %s", channel.arn(), table.name(),
                    table.spec());
        }
        return table;
    }

    /** @param versionId the registry's id of the schema's version, recorded on the table; null: none */
    private static Table create(Catalog catalog, Channel channel, Schema schema, UUID versionId, OwnCreation own) {
        try {
            return createNamespaceAndTable(catalog, channel, schema, versionId, own);
        } catch (ForbiddenException | NotAuthorizedException refused) {
            throw new TableRefusedException(refused);
        }
    }

    private static Table createNamespaceAndTable(Catalog catalog, Channel channel, Schema schema, UUID versionId,
            OwnCreation own) {
        if (catalog instanceof SupportsNamespaces namespaces
                && !namespaces.namespaceExists(channel.table().namespace())) {
            try {
                namespaces.createNamespace(channel.table().namespace());
            } catch (AlreadyExistsException raced) {
                // another instance created it first
            }
        }
        if (own != null) {
            Map<String, String> properties = new HashMap<>(properties(channel));
            properties.put(SETUP_PROPERTY, PENDING);
            own.create(channel, schema, properties);
            return catalog.loadTable(channel.table());
        }
        try {
            return catalog.buildTable(channel.table(), schema)
                    .withPartitionSpec(PartitionSpec.builderFor(schema).hour(channel.partitionSource()).build())
                    .withProperties(properties(channel))
                    .withProperties(versionId == null ? Map.of()
                            : Map.of(DeliveryTables.SCHEMA_VERSION_PROPERTY, versionId.toString()))
                    .create();
        } catch (AlreadyExistsException raced) {
            return catalog.loadTable(channel.table());
        }
    }

    /**
     * A table created by an {@link OwnCreation} gets the rest of the channel's schema (in its order), the partition
     * spec and the schema version in one commit; the one instance whose commit lands does it, the others see it done.
     */
    private static Table finishSetup(Catalog catalog, Channel channel, Schema schema, UUID versionId) {
        for (int attempt = 1; ; attempt++) {
            Table table = catalog.loadTable(channel.table());
            if (!PENDING.equals(table.properties().get(SETUP_PROPERTY))) {
                return table;
            }
            Transaction setup = table.newTransaction();
            UpdateSchema columns = setup.updateSchema().unionByNameWith(schema);
            String previous = null;
            for (Types.NestedField column : schema.columns()) {
                if (previous == null) {
                    columns.moveFirst(column.name());
                } else {
                    columns.moveAfter(column.name(), previous);
                }
                previous = column.name();
            }
            columns.commit();
            if (table.spec().isUnpartitioned()) {
                setup.updateSpec().addField(Expressions.hour(channel.partitionSource())).commit();
            }
            UpdateProperties properties = setup.updateProperties().remove(SETUP_PROPERTY);
            if (versionId != null) {
                properties.set(DeliveryTables.SCHEMA_VERSION_PROPERTY, versionId.toString());
            }
            properties.commit();
            try {
                setup.commitTransaction();
                Table done = catalog.loadTable(channel.table());
                LOG.infof("Channel %s: table %s set up, partitioned by %s", channel.arn(), channel.table(),
                        done.spec());
                return done;
            } catch (CommitFailedException raced) {
                if (attempt == 3) {
                    throw raced;
                }
            }
        }
    }

    static Map<String, String> properties(Channel channel) {
        return Map.of(
                TableProperties.FORMAT_VERSION, "2",
                TableProperties.DEFAULT_FILE_FORMAT, "parquet",
                TableProperties.PARQUET_COMPRESSION, parquetCodec(channel.compression()),
                // SPEC S7's Snappy metadata: the manifests' codec (write.avro.compression-codec is Avro data files'
                // only). Iceberg writes manifest lists with gzip whatever the table says, and metadata.json plain.
                TableProperties.MANIFEST_COMPRESSION, "snappy",
                TableProperties.WRITE_TARGET_FILE_SIZE_BYTES, Long.toString(TARGET_FILE_SIZE_BYTES),
                // our own loop retries commits, re-checking the watermarks (ShardWatermarks.commit)
                TableProperties.COMMIT_NUM_RETRIES, "0",
                // a commit per freshness interval writes a metadata file each time: keep only the last
                // write.metadata.previous-versions-max (100), as Iceberg advises for streaming writers
                TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true",
                // a column whose dictionary passes 64 KiB is written plain: a streaming table keeps a writer open
                // per partition, and unbounded dictionaries of unique values (ids, URLs) would hold most of its heap
                // and write CPU for files no smaller
                TableProperties.PARQUET_DICT_SIZE_BYTES, "65536",
                Checkpoint.CHANNEL_ARN_PROPERTY, channel.arn());
    }

    static String parquetCodec(String compression) {
        return switch (compression.toUpperCase(Locale.ROOT)) {
            case "NONE" -> "uncompressed";
            case "SNAPPY" -> "snappy";
            default -> "zstd";
        };
    }

    /** Creates a channel's table with {@link #properties} and what of its schema it can, instead of the catalog. */
    interface OwnCreation {
        void create(Channel channel, Schema schema, Map<String, String> properties);
    }

    static final class TableNotOwnedException extends IllegalStateException {
        TableNotOwnedException(String message) {
            super(message);
        }
    }

    /**
     * The catalog refused to create the channel's namespace or table (401, 403): no retry changes that, and a channel
     * left ACTIVE would take rows that no table can hold.
     */
    static final class TableRefusedException extends IllegalStateException {
        TableRefusedException(RuntimeException refusal) {
            super(refusal.getMessage(), refusal);
        }
    }
}
