package io.streamtables.commit;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.bus.CommitToken;
import io.streamtables.bus.ErrorCode;
import io.streamtables.bus.Reject;
import io.streamtables.bus.RowChunk;
import io.streamtables.bus.Sequences;
import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelDefinition;
import io.streamtables.config.DeliveryConfig;
import io.streamtables.config.TestDeliveryConfig;
import io.streamtables.convert.RowConverter;
import io.streamtables.schema.JsonSchemaMapper;
import io.streamtables.watermarks.ManifestWorkers;
import io.streamtables.watermarks.ShardWatermarks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/** A real channel, a JDBC catalog on SQLite in a temp folder, and chunk builders. */
final class CommitFixture implements AutoCloseable {

    /** The commits' manifest threads, shared by the tests of this JVM (daemon threads). */
    static final ManifestWorkers MANIFESTS = ManifestWorkers.start(2);

    static final String SHARD = "shardId-000000000001";
    static final String STREAM_ARN = "arn:aws:kinesis:us-east-1:000000000000:stream/orders";
    /** Another stream, whose shards have the same ids: the channel created again on it. */
    static final String STREAM_B = "arn:aws:kinesis:us-east-1:000000000000:stream/orders-b";

    static final DeliveryConfig CONFIG = TestDeliveryConfig.forAccount("000000000000");

    static final String JSON_SCHEMA = """
            {"type": "object", "required": ["id", "ts"], "properties": {
              "id":   {"type": "integer"},
              "ts":   {"type": "string", "format": "date-time"},
              "note": {"type": "string"}
            }}""";

    static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    // Iceberg logs every commit and scan at INFO; keep the build output readable (held: the level must stick).
    private static final Logger ICEBERG_LOG = quiet("org.apache");

    private static Logger quiet(String name) {
        Logger logger = Logger.getLogger(name);
        logger.setLevel(Level.WARNING);
        return logger;
    }

    final Catalog catalog;
    final Channel channel;
    final Schema schema;
    final Table table;
    private final RowConverter converter;

    CommitFixture(Path dir) {
        this(dir, "ZSTD");
    }

    /** @param compression the channel's CompressionType */
    CommitFixture(Path dir, String compression) {
        this.catalog = catalog(dir);
        this.channel = channel("orders-channel", "orders", "errors/", null, compression, STREAM_ARN);
        JsonNode jsonSchema;
        try {
            jsonSchema = JSON.readTree(JSON_SCHEMA);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.schema = JsonSchemaMapper.toIceberg(jsonSchema);
        this.table = TableOpener.open(catalog, false, channel, schema, null);
        this.converter = new RowConverter(table.schema(), jsonSchema);
    }

    static Catalog catalog(Path dir) {
        return CatalogUtil.buildIcebergCatalog("delivery", Map.of(
                "type", "jdbc",
                "uri", "jdbc:sqlite:" + dir + "/c.db",
                "warehouse", dir + "/wh",
                "io-impl", "io.streamtables.catalog.LocalFileIO",
                "jdbc.schema-version", "V1",
                "clients", "1"), null); // SQLite takes one writer at a time
    }

    static Channel channel(String name, String tableName) {
        return channel(name, tableName, "errors/");
    }

    static Channel channel(String name, String tableName, String errorPrefix) {
        return channel(name, tableName, errorPrefix, null, "ZSTD", STREAM_ARN);
    }

    /** A channel whose data is encrypted with a KMS key of its own (EncryptionConfiguration). */
    static Channel keyed(String name, String tableName, String kmsKeyArn) {
        return channel(name, tableName, "errors/", null, "ZSTD", STREAM_ARN,
                new ChannelDefinition.EncryptionConfiguration("KMS", kmsKeyArn));
    }

    /** The fixture's channel deleted and created again under its name, into its table, on another stream. */
    Channel channelOn(String stream) {
        return channel(channel.name(), "orders", "errors/", null, "ZSTD", stream);
    }

    /** A channel tagged delivery:existing-table=ACCEPT. */
    static Channel accepting(String name, String tableName) {
        return channel(name, tableName, "errors/", Map.of(Channel.EXISTING_TABLE_TAG, "ACCEPT"), "ZSTD", STREAM_ARN);
    }

    private static Channel channel(String name, String tableName, String errorPrefix, Map<String, String> tags,
            String compression, String stream) {
        return channel(name, tableName, errorPrefix, tags, compression, stream, null);
    }

    private static Channel channel(String name, String tableName, String errorPrefix, Map<String, String> tags,
            String compression, String stream, ChannelDefinition.EncryptionConfiguration encryption) {
        ChannelDefinition d = new ChannelDefinition(name, "arn:aws:iam::000000000000:role/delivery",
                List.of(new ChannelDefinition.StreamConfiguration(stream,
                        new ChannelDefinition.RecordConfiguration("JSON",
                                "arn:aws:glue:us-east-1:000000000000:schema/registry/orders"))),
                new ChannelDefinition.S3TablesDestinationConfiguration(1,
                        new ChannelDefinition.DeadLetterQueueConfiguration("arn:aws:s3:::dlq-bucket", "000000000000",
                                errorPrefix),
                        List.of(new ChannelDefinition.TableConfiguration(
                                "arn:aws:s3tables:us-east-1:000000000000:bucket/tables", "sales", tableName, compression,
                                new ChannelDefinition.PartitionSpec(
                                        List.of(new ChannelDefinition.PartitionField("TIME_HOUR", "ts")))))),
                null, encryption, tags);
        return Channel.of(d, CONFIG);
    }

    ChannelBuffer buffer() {
        return buffer(channel);
    }

    /** A buffer of the channel as it is now: its stream's watermarks. */
    ChannelBuffer buffer(Channel now) {
        table.refresh();
        return new ChannelBuffer(now, table, ShardWatermarks.committed(table, now.streamArn().toString()));
    }

    /** A delivery of the channel as it is now, with its own instance of the table, as the commit stage opens one. */
    ChannelDelivery delivery(Channel now, DeadLetterOutbox.Dlq dlq) {
        return new ChannelDelivery(now, catalog.loadTable(now.table()), buffer(now), dlq, MANIFESTS);
    }

    /** A converted row; its id is the sequence number, so the table shows which records landed. */
    RowChunk.Row row(String sequence, String ts) {
        return row(sequence, ts, "n" + sequence);
    }

    RowChunk.Row row(String sequence, String ts, String note) {
        Map<String, Object> document = Map.of("id", Long.parseLong(sequence), "ts", ts, "note", note);
        return new RowChunk.Row(sequence, 0L, converter.convert(JSON.valueToTree(document)));
    }

    /** A chunk of consecutive sequence numbers first..last, all in one hour. */
    RowChunk chunk(String previous, long first, long last) {
        List<RowChunk.Row> rows = new ArrayList<>();
        for (long s = first; s <= last; s++) {
            rows.add(row(Long.toString(s), "2024-05-01T10:00:00Z"));
        }
        return chunk(previous, rows, List.of());
    }

    RowChunk chunk(String previous, List<RowChunk.Row> rows, List<Reject> rejects) {
        return chunk(SHARD, previous, rows, rejects);
    }

    RowChunk chunk(String shard, String previous, List<RowChunk.Row> rows, List<Reject> rejects) {
        return chunk(STREAM_ARN, shard, previous, rows, rejects);
    }

    /** A chunk of records first..last of {@link #SHARD} of {@code stream}, all in one hour. */
    RowChunk chunk(String stream, String previous, long first, long last) {
        List<RowChunk.Row> rows = new ArrayList<>();
        for (long s = first; s <= last; s++) {
            rows.add(row(Long.toString(s), "2024-05-01T10:00:00Z"));
        }
        return chunk(stream, SHARD, previous, rows, List.of());
    }

    RowChunk chunk(String stream, String shard, String previous, List<RowChunk.Row> rows, List<Reject> rejects) {
        List<String> sequences = new ArrayList<>();
        rows.forEach(r -> sequences.add(r.sequenceNumber()));
        rejects.forEach(r -> sequences.add(r.sequenceNumber()));
        sequences.sort(Sequences.ORDER);
        CommitToken token = new CommitToken(channel.arn(), stream, shard, previous, sequences.get(0),
                sequences.get(sequences.size() - 1));
        return new RowChunk(token, rows, rejects);
    }

    static Reject reject(String sequence, long arrivalMillis) {
        return reject(STREAM_ARN, sequence, arrivalMillis);
    }

    static Reject reject(String stream, String sequence, long arrivalMillis) {
        return new Reject(stream, SHARD, sequence, arrivalMillis, ErrorCode.SCHEMA_VALIDATION_FAILED,
                "/id fails rule 'type'", "/id");
    }

    /** The ids in the table, read back from its data files. */
    List<Long> ids() {
        table.refresh();
        List<Long> ids = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            records.forEach(r -> ids.add((Long) r.getField("id")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ids.sort(null);
        return ids;
    }

    Map<String, String> watermarks() {
        return watermarks(STREAM_ARN);
    }

    /** The watermarks of {@code stream}'s shards. */
    Map<String, String> watermarks(String stream) {
        table.refresh();
        return new TreeMap<>(ShardWatermarks.committed(table, stream));
    }

    @Override
    public void close() throws Exception {
        if (catalog instanceof AutoCloseable c) {
            c.close();
        }
    }
}
