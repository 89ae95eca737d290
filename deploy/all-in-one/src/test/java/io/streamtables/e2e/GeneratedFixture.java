package io.streamtables.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamtables.e2e.RandomDocuments.GenDoc;
import io.streamtables.e2e.RandomSchemas.GeneratedSchema;
import io.streamtables.watermarks.ShardWatermarks;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.CloseableIterable;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResultEntry;
import software.amazon.awssdk.services.kinesis.model.StreamStatus;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Several channels of generated schemas in one all-in-one process, against the real peers: per schema a 2-shard
 * stream in kinesis-local, a DLQ bucket in S3Proxy and a table in one SQLite catalog whose warehouse is an S3Proxy
 * bucket. Remembers where every document landed in Kinesis and checks each one is in the table or in the DLQ,
 * exactly once, unchanged.
 */
final class GeneratedFixture implements AutoCloseable {

    static final String REGISTRY = "generated";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One channel under test. */
    static final class Lane {
        final GeneratedSchema schema;
        final String streamName;
        final String streamArn;
        final String channelName;
        final String dlqBucket;
        final String dlqPrefix;
        final String compression;
        final TableIdentifier table;
        final List<Sent> sent = new ArrayList<>();
        /** Valid documents sent until the channel delivered one (SPEC S2: those before ACTIVE are not delivered). */
        final List<Sent> probes = new ArrayList<>();

        Lane(GeneratedSchema schema, String suffix, String namespace, Random random) {
            this.schema = schema;
            this.streamName = "gen-" + schema.index() + "-" + suffix;
            this.streamArn = "arn:aws:kinesis:" + Peers.REGION + ":" + Peers.ACCOUNT + ":stream/" + streamName;
            this.channelName = "gen-channel-" + schema.index() + "-" + suffix;
            this.dlqBucket = "gen-dlq-" + schema.index() + "-" + suffix;
            String[] prefixes = {"errors/", "dead/letters/" + schema.index() + "/", null};
            this.dlqPrefix = prefixes[random.nextInt(prefixes.length)];
            this.compression = new String[] {"ZSTD", "SNAPPY", "NONE"}[random.nextInt(3)];
            this.table = TableIdentifier.of(namespace, schema.name());
        }

        String channelArn() {
            return "arn:aws:kinesis:" + Peers.REGION + ":" + Peers.ACCOUNT + ":channel/" + channelName;
        }

        String schemaArn() {
            return "arn:aws:glue:" + Peers.REGION + ":" + Peers.ACCOUNT + ":schema/" + REGISTRY + "/" + schema.name();
        }

        List<Sent> all() {
            List<Sent> all = new ArrayList<>(probes);
            all.addAll(sent);
            return all;
        }

        Map<String, String> expectedWatermarks() {
            Map<String, String> max = new TreeMap<>();
            for (Sent s : all()) {
                max.merge(s.shardId(), s.sequenceNumber(),
                        (a, b) -> new BigInteger(a).compareTo(new BigInteger(b)) >= 0 ? a : b);
            }
            return max;
        }
    }

    record Sent(GenDoc doc, String shardId, String sequenceNumber) {
        String where() {
            return shardId + "/" + sequenceNumber;
        }
    }

    /** What one lane's check found. */
    static final class Outcome {
        long rows;
        long probeRows;
        int commits;
        final Map<String, Integer> deadLettersByCode = new TreeMap<>();
        final List<String> problems = new ArrayList<>();
        final List<String> notes = new ArrayList<>();
    }

    final Path workDir;
    final List<Lane> lanes = new ArrayList<>();
    final Map<String, String> catalogProperties = new LinkedHashMap<>();
    final Map<String, String> appConfig = new LinkedHashMap<>();
    final KinesisClient kinesis = Peers.kinesis();
    final S3Client s3 = Peers.s3();
    private final String warehouseBucket;
    private Catalog catalog;

    GeneratedFixture(List<GeneratedSchema> schemas, Random random, int freshnessSeconds) throws Exception {
        String suffix = Long.toString(System.currentTimeMillis(), 36);
        this.workDir = AllInOneProcess.tempDir("generated");
        this.warehouseBucket = "gen-wh-" + suffix;
        String namespace = "generated_" + suffix;
        for (GeneratedSchema schema : schemas) {
            lanes.add(new Lane(schema, suffix, namespace, random));
        }
        s3.createBucket(r -> r.bucket(warehouseBucket));
        for (Lane lane : lanes) {
            kinesis.createStream(r -> r.streamName(lane.streamName).shardCount(2));
            s3.createBucket(r -> r.bucket(lane.dlqBucket));
            Path schemaFile = workDir.resolve("schemas").resolve(REGISTRY).resolve(lane.schema.name() + ".json");
            Files.createDirectories(schemaFile.getParent());
            Files.writeString(schemaFile, lane.schema.json());
        }
        for (Lane lane : lanes) {
            awaitStreamActive(lane.streamName);
        }
        Path channels = workDir.resolve("channels.json");
        Files.writeString(channels, channelsJson(freshnessSeconds));

        catalogProperties.putAll(Peers.catalog("jdbc:sqlite:" + workDir.resolve("catalog.db"), warehouseBucket));
        appConfig.putAll(Peers.appConfig(workDir, channels, catalogProperties));
        appConfig.put("delivery.schema-registry.source", "local");
    }

    private String channelsJson(int freshnessSeconds) throws Exception {
        ArrayNode all = JSON.createArrayNode();
        for (Lane lane : lanes) {
            ObjectNode c = all.addObject();
            c.put("ChannelName", lane.channelName);
            c.put("ServiceExecutionRoleArn", "arn:aws:iam::" + Peers.ACCOUNT + ":role/delivery");
            ObjectNode stream = c.putArray("StreamConfigurationList").addObject();
            stream.put("StreamARN", lane.streamArn);
            stream.putObject("RecordConfiguration").put("RecordFormatType", "JSON").put("GSRSchemaARN", lane.schemaArn());
            ObjectNode dest = c.putObject("S3TablesDestinationConfiguration");
            dest.put("DataFreshnessInSeconds", freshnessSeconds);
            ObjectNode dlq = dest.putObject("DeadLetterQueueS3Configuration");
            dlq.put("BucketARN", "arn:aws:s3:::" + lane.dlqBucket);
            dlq.put("ExpectedBucketOwner", Peers.ACCOUNT);
            if (lane.dlqPrefix != null) {
                dlq.put("ErrorOutputPrefix", lane.dlqPrefix);
            }
            ObjectNode table = dest.putArray("S3TablesConfigurationList").addObject();
            table.put("TableBucketARN", "arn:aws:s3tables:" + Peers.REGION + ":" + Peers.ACCOUNT + ":bucket/tables");
            table.put("Namespace", lane.table.namespace().level(0));
            table.put("TableName", lane.table.name());
            table.put("CompressionType", lane.compression);
            table.putObject("PartitionSpec").putArray("PartitionFields").addObject().put("Transform", "TIME_HOUR")
                    .put("SourceName", lane.schema.partitionField());
        }
        return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(all);
    }

    private void awaitStreamActive(String streamName) throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            if (kinesis.describeStreamSummary(r -> r.streamName(streamName)).streamDescriptionSummary()
                    .streamStatus() == StreamStatus.ACTIVE) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("stream " + streamName + " not ACTIVE");
    }

    /**
     * Waits until every channel delivers: sends a valid probe document to each channel that has no commit yet, every
     * 700 ms, until its table holds watermarks. Probes sent before the channel was ACTIVE need not be delivered
     * (SPEC S2); {@link #verify} checks the others like any valid document.
     */
    void awaitDelivering(AllInOneProcess app, java.util.function.Function<Lane, GenDoc> probes, long timeoutSeconds)
            throws Exception {
        long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
        List<Lane> waiting = new ArrayList<>(lanes);
        while (!waiting.isEmpty()) {
            waiting.removeIf(lane -> !committedWatermarks(lane).isEmpty());
            if (System.nanoTime() > deadline || !app.isAlive()) {
                throw new AssertionError("channels " + waiting.stream().map(l -> l.channelName).toList()
                        + " delivered nothing in " + timeoutSeconds + " s (process alive: " + app.isAlive()
                        + ")\nlog:\n" + app.tail());
            }
            for (Lane lane : waiting) {
                produce(lane, List.of(probes.apply(lane)), lane.probes);
            }
            Thread.sleep(700);
        }
    }

    /** Sends the documents with PutRecords, at most 500 and 4 MiB a call, resending entries Kinesis refused. */
    void produce(Lane lane, List<GenDoc> docs) {
        produce(lane, docs, lane.sent);
    }

    private void produce(Lane lane, List<GenDoc> docs, List<Sent> sentTo) {
        for (int from = 0; from < docs.size();) {
            int to = from;
            long bytes = 0;
            while (to < docs.size() && to - from < 500 && bytes + docs.get(to).data().length < 4L * 1024 * 1024) {
                bytes += docs.get(to).data().length + docs.get(to).partitionKey().length();
                to++;
            }
            List<GenDoc> batch = new ArrayList<>(docs.subList(from, to));
            from = to;
            for (int attempt = 0; !batch.isEmpty(); attempt++) {
                if (attempt > 20) {
                    throw new IllegalStateException("Kinesis keeps refusing " + batch.size() + " records");
                }
                List<PutRecordsRequestEntry> entries = batch.stream().map(d -> PutRecordsRequestEntry.builder()
                        .data(SdkBytes.fromByteArray(d.data())).partitionKey(d.partitionKey()).build()).toList();
                PutRecordsResponse response = kinesis.putRecords(r -> r.streamName(lane.streamName).records(entries));
                List<GenDoc> retry = new ArrayList<>();
                for (int i = 0; i < batch.size(); i++) {
                    PutRecordsResultEntry result = response.records().get(i);
                    if (result.errorCode() != null) {
                        retry.add(batch.get(i));
                    } else {
                        sentTo.add(new Sent(batch.get(i), result.shardId(), result.sequenceNumber()));
                    }
                }
                batch = retry;
            }
        }
    }

    Catalog catalog() {
        if (catalog == null) {
            catalog = CatalogUtil.buildIcebergCatalog("delivery", catalogProperties, null);
        }
        return catalog;
    }

    Map<String, String> committedWatermarks(Lane lane) {
        try {
            return ShardWatermarks.committed(catalog().loadTable(lane.table), lane.streamArn);
        } catch (NoSuchTableException e) {
            return Map.of();
        }
    }

    /**
     * Waits until every lane's table watermarks reach the highest sequence number sent to each shard, and its dead
     * letters are in the DLQ.
     */
    void awaitDelivered(long timeoutSeconds, AllInOneProcess app) throws Exception {
        long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
        for (Lane lane : lanes) {
            Map<String, String> expected = lane.expectedWatermarks();
            Map<String, String> committed = Map.of();
            while (true) {
                committed = committedWatermarks(lane);
                if (committed.equals(expected) && DeliveryFixture.deadLettersPublished(catalog().loadTable(lane.table))) {
                    break;
                }
                if (System.nanoTime() > deadline || !app.isAlive()) {
                    throw new AssertionError("channel " + lane.channelName + " not delivered in " + timeoutSeconds
                            + " s (process alive: " + app.isAlive() + "): expected watermarks " + expected
                            + " but the table holds " + committed + "\nlog:\n" + app.tail());
                }
                Thread.sleep(300);
            }
        }
    }

    /** Reads the lane's table and DLQ back and checks every document sent against them. */
    Outcome verify(Lane lane) throws Exception {
        Outcome out = new Outcome();
        String where = "schema " + lane.schema.index() + " (" + lane.schema.name() + "): ";
        Table t = catalog().loadTable(lane.table);
        t.snapshots().forEach(snapshot -> out.commits++);

        // the table's schema is what table T gives the JSON Schema
        String expectedType = RandomSchemas.describeSorted(RandomSchemas.icebergType(lane.schema.root()));
        String actualType = RandomSchemas.describeSorted(t.schema().asStruct());
        if (!expectedType.equals(actualType)) {
            out.problems.add(where + "table schema differs from table T:\n  expected " + expectedType + "\n  actual   "
                    + actualType);
        }
        List<PartitionField> partitionFields = t.spec().fields();
        if (partitionFields.size() != 1 || !partitionFields.get(0).transform().toString().equals("hour")
                || !t.schema().findColumnName(partitionFields.get(0).sourceId()).equals(lane.schema.partitionField())) {
            out.problems.add(where + "partition spec is " + t.spec() + ", not hour(" + lane.schema.partitionField() + ")");
        }

        Map<Long, Sent> byId = new HashMap<>();
        Map<String, Sent> byPosition = new HashMap<>();
        for (Sent s : lane.all()) {
            if (s.doc().id() != null && byId.put(s.doc().id(), s) != null) {
                throw new IllegalStateException("generator gave id " + s.doc().id() + " twice");
            }
            byPosition.put(s.where(), s);
        }

        Map<Long, Integer> rowsById = new HashMap<>();
        try (CloseableIterable<Record> rows = IcebergGenerics.read(t).build()) {
            for (Record row : rows) {
                out.rows++;
                Object idValue = row.getField("id");
                if (!(idValue instanceof Long id)) {
                    out.problems.add(where + "row with id " + idValue + ": " + row);
                    continue;
                }
                int times = rowsById.merge(id, 1, Integer::sum);
                Sent s = byId.get(id);
                if (s == null) {
                    out.problems.add(where + "row with id " + id + " that was never sent: " + row);
                } else if (!s.doc().valid()) {
                    out.problems.add(where + "MUTATED document delivered to the table instead of the DLQ: "
                            + s.doc().describe() + " at " + s.where() + "\n    document: " + s.doc().text()
                            + "\n    row: " + row);
                } else if (times == 1) {
                    List<String> diffs = new ArrayList<>();
                    RandomDocuments.compareRow(lane.schema, s.doc().doc(), row, diffs);
                    if (!diffs.isEmpty()) {
                        out.problems.add(where + "row differs from the document sent: " + s.doc().describe()
                                + " at " + s.where() + "\n    " + String.join("\n    ", diffs) + "\n    schema fields: "
                                + fragmentsOf(lane, diffs) + "\n    document: " + s.doc().text());
                    }
                }
            }
        }
        rowsById.forEach((id, n) -> {
            if (n > 1) {
                out.problems.add(where + "id " + id + " is " + n + " times in the table: " + byId.get(id).doc().describe());
            }
        });

        Map<String, Integer> dlqByPosition = new HashMap<>();
        for (S3Object o : s3.listObjectsV2Paginator(r -> r.bucket(lane.dlqBucket)).contents()) {
            String body = s3.getObjectAsBytes(r -> r.bucket(lane.dlqBucket).key(o.key())).asString(StandardCharsets.UTF_8);
            String keyPattern = java.util.regex.Pattern.quote(lane.dlqPrefix == null ? "" : lane.dlqPrefix)
                    + "\\d{4}/\\d{2}/\\d{2}/\\d{2}/" + java.util.regex.Pattern.quote(lane.channelName)
                    + "-shardId-\\d+-\\d+\\.jsonl";
            if (!o.key().matches(keyPattern)) {
                out.problems.add(where + "DLQ object key " + o.key() + " is not PREFIX yyyy/MM/dd/HH/CHANNEL-SHARD-SEQ.jsonl"
                        + " (prefix " + lane.dlqPrefix + ")");
            }
            if (body.contains(RandomDocuments.MARKER)) {
                out.problems.add(where + "DLQ object " + o.key() + " holds payload bytes (" + RandomDocuments.MARKER
                        + "): " + lineWith(body, RandomDocuments.MARKER));
            }
            if (body.contains(RandomDocuments.KEY_MARKER)) {
                out.notes.add(where + "DLQ object " + o.key() + " names a field by a map key taken from the payload: "
                        + lineWith(body, RandomDocuments.KEY_MARKER));
            }
            for (String line : body.split("\n")) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode entry = JSON.readTree(line);
                String position = entry.path("shardId").asText() + "/" + entry.path("sequenceNumber").asText();
                String code = entry.path("errorCode").asText();
                int times = dlqByPosition.merge(position, 1, Integer::sum);
                out.deadLettersByCode.merge(code, 1, Integer::sum);
                if (!RandomDocuments.D3.contains(code)) {
                    out.problems.add(where + "DLQ entry with an errorCode outside SPEC D3: " + line);
                }
                if (!lane.streamArn.equals(entry.path("streamArn").asText())
                        || !lane.channelArn().equals(entry.path("channelArn").asText())
                        || entry.path("approximateArrivalTimestamp").asText().isEmpty()
                        || entry.path("errorMessage").asText().isEmpty()) {
                    out.problems.add(where + "DLQ entry without its identifiers or message: " + line);
                }
                Sent s = byPosition.get(position);
                if (s == null) {
                    out.problems.add(where + "DLQ entry for a record that was never sent: " + line);
                } else if (s.doc().valid()) {
                    out.problems.add(where + "VALID document dead-lettered: " + s.doc().describe() + " at " + position
                            + "\n    DLQ entry: " + line + "\n    schema fields: "
                            + fragmentsOf(lane, List.of(entry.path("field").asText("/"))) + "\n    document: "
                            + s.doc().text());
                } else if (times == 1 && !s.doc().codes().contains(code)) {
                    out.problems.add(where + "document dead-lettered with code " + code + ", expected one of "
                            + s.doc().codes() + ": " + s.doc().describe() + "\n    DLQ entry: " + line
                            + "\n    document: " + s.doc().text());
                }
            }
        }
        dlqByPosition.forEach((position, n) -> {
            if (n > 1) {
                Sent s = byPosition.get(position);
                out.problems.add(where + "record " + position + " is " + n + " times in the DLQ"
                        + (s == null ? "" : ": " + s.doc().describe()));
            }
        });

        // probes: once one was delivered, every later one must be too (the channel was ACTIVE)
        boolean delivering = false;
        for (Sent p : lane.probes) {
            boolean inTable = rowsById.containsKey(p.doc().id());
            if (inTable) {
                delivering = true;
                out.probeRows++;
            } else if (delivering) {
                out.problems.add(where + "LOST probe sent after an earlier probe was delivered: " + p.doc().describe()
                        + " at " + p.where() + "\n    document: " + p.doc().text());
            }
            if (dlqByPosition.containsKey(p.where())) {
                out.problems.add(where + "VALID probe dead-lettered: " + p.doc().describe() + " at " + p.where());
            }
        }

        // none lost: every record sent is in exactly one of the two
        for (Sent s : lane.sent) {
            boolean inTable = s.doc().id() != null && rowsById.containsKey(s.doc().id());
            boolean inDlq = dlqByPosition.containsKey(s.where());
            if (!inTable && !inDlq) {
                out.problems.add(where + "LOST: neither in the table nor in the DLQ: " + s.doc().describe() + " at "
                        + s.where() + "\n    document: " + s.doc().text());
            } else if (inTable && inDlq && s.doc().valid()) {
                out.problems.add(where + "BOTH in the table and in the DLQ: " + s.doc().describe() + " at " + s.where());
            }
        }
        return out;
    }

    private static String fragmentsOf(Lane lane, List<String> paths) {
        Map<String, String> fragments = RandomSchemas.fragments(lane.schema);
        Map<String, String> out = new LinkedHashMap<>();
        for (String path : paths) {
            String top = path.startsWith("/") ? path.substring(1) : path;
            int slash = top.indexOf('/');
            int space = top.indexOf(' ');
            int end = slash < 0 ? space : space < 0 ? slash : Math.min(slash, space);
            String name = end < 0 ? top : top.substring(0, end);
            if (fragments.containsKey(name)) {
                out.put(name, fragments.get(name));
            }
        }
        return out.toString();
    }

    private static String lineWith(String body, String needle) {
        for (String line : body.split("\n")) {
            if (line.contains(needle)) {
                return line;
            }
        }
        return "";
    }

    @Override
    public void close() {
        for (Lane lane : lanes) {
            try {
                kinesis.deleteStream(r -> r.streamName(lane.streamName));
            } catch (RuntimeException ignored) {
                // the peer is transient anyway
            }
        }
        kinesis.close();
        s3.close();
    }
}
