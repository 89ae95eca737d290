package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.watermarks.ShardWatermarks;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.CloseableIterable;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ChannelEncryptionConfiguration;
import software.amazon.awssdk.services.kinesis.model.HashKeyRange;
import software.amazon.awssdk.services.kinesis.model.PutRecordResponse;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResultEntry;
import software.amazon.awssdk.services.kinesis.model.Shard;
import software.amazon.awssdk.services.kinesis.model.StreamStatus;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * One channel against the real peers: a 4-shard stream in kinesis-local, a DLQ bucket and a warehouse bucket in
 * S3Proxy, a catalog on SQLite or PostgreSQL. Produces events, remembers where each landed, and checks the
 * table and the DLQ against them.
 */
final class DeliveryFixture implements AutoCloseable {

    /**
     * Where the channel's table is: a JDBC catalog ({@code delivery.catalog.*}), or Iceberg's REST catalog server
     * named as an S3 Tables bucket ({@code delivery.table-buckets.rest-tables.*}, type s3tables, SigV4).
     */
    enum CatalogKind { SQLITE, POSTGRES, REST }

    private static final ObjectMapper JSON = new ObjectMapper();

    final String name;
    final Path workDir;
    /** The channel's name: its first stream's, kept when the channel is created again on another stream. */
    final String channelName;
    /** The stream the channel reads, which {@link #produce} writes to. */
    String streamName;
    String streamArn;
    /** Every stream created here, deleted at the end. */
    private final List<String> streams = new ArrayList<>();
    final String dlqBucket;
    final String warehouseBucket;
    TableIdentifier table;
    final Map<String, String> catalogProperties = new LinkedHashMap<>();
    final Map<String, String> appConfig = new LinkedHashMap<>();
    final KinesisClient kinesis = Peers.kinesis();
    S3Client s3 = Peers.s3();
    /** Every event sent, by id, with the shard and sequence number Kinesis gave it. */
    final Map<Long, Sent> sent = new ConcurrentHashMap<>();
    private final int freshnessSeconds;
    private final String recordFormat;
    private String kmsKeyArn;
    private String roleArn = "arn:aws:iam::" + Peers.ACCOUNT + ":role/delivery";
    /** The name in the channel's TableBucketARN. */
    private String tableBucket = "tables";
    private final Map<String, String> tags = new LinkedHashMap<>();
    private Catalog catalog;

    record Sent(Events.Event event, String streamArn, String shardId, String sequenceNumber) {
    }

    DeliveryFixture(String name, CatalogKind kind, int freshnessSeconds) throws Exception {
        this(name, kind, freshnessSeconds, "JSON");
    }

    DeliveryFixture(String name, CatalogKind kind, int freshnessSeconds, String recordFormat) throws Exception {
        this(name, kind, freshnessSeconds, recordFormat, Events.SCHEMA);
    }

    /** The channel's schema is the file schemas/registry/events.json, imported by the service's registry. */
    DeliveryFixture(String name, CatalogKind kind, int freshnessSeconds, String recordFormat, String schema)
            throws Exception {
        String suffix = Long.toString(System.currentTimeMillis(), 36);
        this.name = name;
        this.freshnessSeconds = freshnessSeconds;
        this.recordFormat = recordFormat;
        this.workDir = AllInOneProcess.tempDir(name);
        this.channelName = name + "-" + suffix;
        this.dlqBucket = "dlq-" + name + "-" + suffix;
        this.warehouseBucket = kind == CatalogKind.REST ? Peers.REST_WAREHOUSE_BUCKET : "wh-" + name + "-" + suffix;
        this.table = TableIdentifier.of(name.replace('-', '_') + "_" + suffix, "events");

        createStream(channelName);
        s3.createBucket(r -> r.bucket(dlqBucket));
        if (kind != CatalogKind.REST) { // the REST catalog's is shared: Peers.restCatalog creates it
            s3.createBucket(r -> r.bucket(warehouseBucket));
        }

        Path schemaFile = workDir.resolve("schemas/registry/events.json");
        Files.createDirectories(schemaFile.getParent());
        Files.writeString(schemaFile, schema);
        Path channels = workDir.resolve("channels.json");
        Files.writeString(channels, channelJson(freshnessSeconds, recordFormat));

        catalogProperties.putAll(Peers.catalog(kind == CatalogKind.POSTGRES ? Peers.POSTGRES
                : "jdbc:sqlite:" + workDir.resolve("catalog.db"), warehouseBucket));
        appConfig.putAll(Peers.appConfig(workDir, channels, catalogProperties));
        if (kind == CatalogKind.REST) {
            inBucket("rest-tables", Peers.s3TablesEntry(Peers.REST_CATALOG), Peers.restCatalog(Peers.REST_CATALOG));
        }
    }

    /** A new stream of 4 shards, the one {@link #createChannel} names and {@link #produce} writes to from now on. */
    void createStream(String streamName) throws InterruptedException {
        this.streamName = streamName;
        this.streamArn = "arn:aws:kinesis:" + Peers.REGION + ":" + Peers.ACCOUNT + ":stream/" + streamName;
        kinesis.createStream(r -> r.streamName(streamName).shardCount(4));
        streams.add(streamName);
        awaitStreamActive();
    }

    String schemaArn() {
        return "arn:aws:glue:" + Peers.REGION + ":" + Peers.ACCOUNT + ":schema/registry/events";
    }

    /** SSE-KMS with this key for the channel's data and DLQ objects (before the service starts). */
    void encryptWith(String kmsKeyArn) throws IOException {
        this.kmsKeyArn = kmsKeyArn;
        Files.writeString(workDir.resolve("channels.json"), channelJson(freshnessSeconds, recordFormat));
    }

    /** The DLQ bucket in another S3-compatible store: created there, and read there by {@link #verify}. */
    void deadLettersIn(S3Client store) {
        store.createBucket(r -> r.bucket(dlqBucket));
        s3.close();
        s3 = store;
    }

    /** The channel's ServiceExecutionRoleARN (before the service starts, or before {@link #createChannel}). */
    void role(String roleArn) throws IOException {
        this.roleArn = roleArn;
        Files.writeString(workDir.resolve("channels.json"), channelJson(freshnessSeconds, recordFormat));
    }

    /**
     * Delivers into table bucket {@code bucket}, whose catalog the service takes from {@code entry}
     * ({@code delivery.table-buckets.<bucket>.*}, replacing {@code delivery.catalog.*} and the entry of the bucket it
     * delivered into before, which would otherwise override another fixture's entry for that bucket) and the test
     * reads through {@code reading} (before the service starts, or before {@link #createChannel}).
     */
    void inBucket(String bucket, Map<String, String> entry, Map<String, String> reading) throws IOException {
        String before = "delivery.table-buckets." + tableBucket + ".";
        appConfig.keySet().removeIf(key -> key.startsWith("delivery.catalog.") || key.startsWith(before));
        tableBucket = bucket;
        entry.forEach((k, v) -> appConfig.put("delivery.table-buckets." + bucket + "." + k, v));
        catalogProperties.clear();
        catalogProperties.putAll(reading);
        Files.writeString(workDir.resolve("channels.json"), channelJson(freshnessSeconds, recordFormat));
    }

    /** A tag of the channel, e.g. its start position (before the service starts, or before {@link #createChannel}). */
    void tag(String key, String value) throws IOException {
        tags.put(key, value);
        Files.writeString(workDir.resolve("channels.json"), channelJson(freshnessSeconds, recordFormat));
    }

    /** The channel's table (before the service starts, or before {@link #createChannel}). */
    void tableNamed(TableIdentifier id) throws IOException {
        table = id;
        Files.writeString(workDir.resolve("channels.json"), channelJson(freshnessSeconds, recordFormat));
    }

    String tableBucketArn() {
        return "arn:aws:s3tables:" + Peers.REGION + ":" + Peers.ACCOUNT + ":bucket/" + tableBucket;
    }

    /** Sends the service's S3 requests (DLQ and Iceberg files) to another endpoint, e.g. a recording proxy. */
    void routeS3Through(String endpoint) {
        appConfig.put("quarkus.s3.endpoint-override", endpoint);
        appConfig.put("delivery.catalog.s3.endpoint", endpoint);
        appConfig.replaceAll((key, value) -> key.startsWith("delivery.table-buckets.") && key.endsWith(".s3.endpoint")
                ? endpoint : value);
    }

    private String channelJson(int freshnessSeconds, String recordFormat) {
        String optional = kmsKeyArn == null ? "" : """
                  "EncryptionConfiguration": {"EncryptionType": "KMS", "KeyId": "%s"},
                """.formatted(kmsKeyArn);
        try {
            optional += tags.isEmpty() ? "" : "\"Tags\": " + JSON.writeValueAsString(tags) + ",\n";
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        return """
                [{%s
                  "ChannelName": "%s",
                  "ServiceExecutionRoleARN": "%s",
                  "StreamConfigurationList": [{
                    "StreamARN": "%s",
                    "RecordConfiguration": {
                      "RecordFormatType": "%s",
                      "GSRSchemaARN": "%s"
                    }
                  }],
                  "S3TablesDestinationConfiguration": {
                    "DataFreshnessInSeconds": %d,
                    "DeadLetterQueueS3Configuration": {
                      "BucketARN": "arn:aws:s3:::%s",
                      "ExpectedBucketOwner": "%s",
                      "ErrorOutputPrefix": "errors/"
                    },
                    "S3TablesConfigurationList": [{
                      "TableBucketARN": "%s",
                      "Namespace": "%s",
                      "TableName": "%s",
                      "CompressionType": "ZSTD",
                      "PartitionSpec": {"PartitionFields": [{"Transform": "TIME_HOUR", "SourceName": "event_time"}]}
                    }]
                  },
                  "LoggingConfiguration": {"CloudWatchLogs": {"Enabled": true, "LogGroupName": "%s",
                    "LogStreamName": "DestinationDelivery"}}
                }]
                """.formatted(optional, channelName, roleArn, streamArn, recordFormat, schemaArn(), freshnessSeconds,
                dlqBucket, Peers.ACCOUNT, tableBucketArn(), table.namespace().level(0), table.name(),
                logGroup());
    }

    private void awaitStreamActive() throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            if (kinesis.describeStreamSummary(r -> r.streamName(streamName)).streamDescriptionSummary()
                    .streamStatus() == StreamStatus.ACTIVE) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("stream " + streamName + " not ACTIVE");
    }

    /** The channel's LoggingConfiguration log group (stream: DestinationDelivery). */
    String logGroup() {
        return "/aws/kinesis/" + channelName;
    }

    /** The service's delivery log lines (SPEC C7) of this channel, parsed, oldest first. */
    List<JsonNode> deliveryLog(AllInOneProcess app) throws IOException {
        List<JsonNode> lines = new ArrayList<>();
        for (String line : app.log().split("\n")) {
            if (line.startsWith("{") && line.contains(channelArn())) {
                lines.add(JSON.readTree(line));
            }
        }
        return lines;
    }

    String channelArn() {
        return "arn:aws:kinesis:" + Peers.REGION + ":" + Peers.ACCOUNT + ":channel/" + channelName;
    }

    /**
     * Waits until the channel is ACTIVE, asking the service's channel API with the official Kinesis client:
     * records produced before that are not delivered (SPEC S2).
     */
    void awaitActive(ServiceUnderTest app) throws Exception {
        awaitStatus(app, "ACTIVE");
    }

    /** The official Kinesis client pointed at the service's channel API. */
    static KinesisClient api(ServiceUnderTest app) {
        return KinesisClient.builder().endpointOverride(java.net.URI.create(app.url()))
                .region(software.amazon.awssdk.regions.Region.of(Peers.REGION))
                .httpClientBuilder(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.builder())
                .credentialsProvider(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                        software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(Peers.KEY, Peers.SECRET)))
                .build();
    }

    /** Creates the channel through the service's channel API, as a user does, rather than from the channels file. */
    void createChannel(ServiceUnderTest service, int freshnessSeconds) {
        try (KinesisClient api = api(service)) {
            api.createChannel(r -> r.channelName(channelName).tags(tags)
                    .serviceExecutionRoleARN(roleArn)
                    .encryptionConfiguration(kmsKeyArn == null ? null
                            : ChannelEncryptionConfiguration.builder().encryptionType("KMS").keyId(kmsKeyArn).build())
                    .streamConfigurationList(s -> s.streamARN(streamArn)
                            .recordConfiguration(rc -> rc.recordFormatType("JSON").gsrSchemaARN(schemaArn())))
                    .s3TablesDestinationConfiguration(d -> d.dataFreshnessInSeconds(freshnessSeconds)
                            .deadLetterQueueS3Configuration(q -> q.bucketARN("arn:aws:s3:::" + dlqBucket)
                                    .expectedBucketOwner(Peers.ACCOUNT).errorOutputPrefix("errors/"))
                            .s3TablesConfigurationList(t -> t.tableBucketARN(tableBucketArn())
                                    .namespace(table.namespace().level(0)).tableName(table.name())
                                    .compressionType("ZSTD")
                                    .partitionSpec(p -> p.partitionFields(pf -> pf.transform("TIME_HOUR")
                                            .sourceName("event_time"))))));
        }
    }

    /** Waits until DescribeChannel answers ResourceNotFoundException (a deleted channel, SPEC C4). */
    void awaitGone(ServiceUnderTest app) throws Exception {
        try (KinesisClient api = api(app)) {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (System.nanoTime() < deadline) {
                try {
                    api.describeChannel(r -> r.channelARN(channelArn()));
                } catch (software.amazon.awssdk.services.kinesis.model.ResourceNotFoundException gone) {
                    return;
                }
                Thread.sleep(250);
            }
            throw new AssertionError("channel " + channelArn() + " still there 60 s after DeleteChannel");
        }
    }

    /** Waits for the channel's status; returns its reason. */
    /**
     * Waits for the channel to be suspended (SPEC C4): FAILED through the API, as the SDKs know no other final state,
     * with a reason that says it was suspended.
     *
     * @return the reason
     */
    String awaitSuspended(ServiceUnderTest app) throws Exception {
        String reason = awaitStatus(app, "FAILED");
        if (!reason.startsWith("Suspended: ") || !reason.endsWith("cannot be resumed: create a new channel.")) {
            throw new AssertionError("channel FAILED, not suspended: " + reason);
        }
        return reason;
    }

    String awaitStatus(ServiceUnderTest app, String wanted) throws Exception {
        try (KinesisClient api = api(app)) {
            String status = null;
            for (int i = 0; i < 300; i++) {
                var d = api.describeChannel(r -> r.channelARN(channelArn())).channelDescription();
                status = d.channelStatusAsString();
                if (wanted.equals(status)) {
                    return d.channelStatusReason() == null ? "" : d.channelStatusReason();
                }
                if ("FAILED".equals(status)) {
                    throw new AssertionError("channel FAILED: " + d.channelStatusReason());
                }
                Thread.sleep(200);
            }
            throw new AssertionError("channel not " + wanted + " in 60 s but " + status + "\n" + app.tail());
        }
    }

    /** Sends the events with PutRecords, 500 a call, resending entries Kinesis refused. */
    void produce(List<Events.Event> events) {
        produce(events, null);
    }

    /** Sends the events to one open shard: each with the first hash key of its range as ExplicitHashKey. */
    void produceTo(Shard shard, List<Events.Event> events) {
        produce(events, shard.hashKeyRange().startingHashKey());
    }

    private void produce(List<Events.Event> events, String explicitHashKey) {
        for (int from = 0; from < events.size(); from += 500) {
            List<Events.Event> batch = new ArrayList<>(events.subList(from, Math.min(events.size(), from + 500)));
            while (!batch.isEmpty()) {
                List<PutRecordsRequestEntry> entries = batch.stream().map(e -> PutRecordsRequestEntry.builder()
                        .data(SdkBytes.fromByteArray(e.data())).partitionKey(e.partitionKey())
                        .explicitHashKey(explicitHashKey).build()).toList();
                PutRecordsResponse response = kinesis.putRecords(r -> r.streamName(streamName).records(entries));
                List<Events.Event> retry = new ArrayList<>();
                for (int i = 0; i < batch.size(); i++) {
                    PutRecordsResultEntry result = response.records().get(i);
                    if (result.errorCode() != null) {
                        retry.add(batch.get(i));
                    } else {
                        sent.put(batch.get(i).id(), new Sent(batch.get(i), streamArn, result.shardId(),
                                result.sequenceNumber()));
                    }
                }
                batch = retry;
            }
        }
    }

    /**
     * Sends the events with PutRecord, {@code inFlight} calls at a time, for streams of 100 000s of records:
     * kinesis-local's PutRecords hashes the target shard's whole record list once per entry, so its cost grows
     * with the stream (83 records/s after 60 000 in a 4-shard stream), while PutRecord only appends (a flat
     * ~500 records/s with 8 in flight).
     */
    void produceEach(List<Events.Event> events, int inFlight) throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(inFlight);
        try {
            List<Future<?>> calls = new ArrayList<>(events.size());
            for (Events.Event e : events) {
                calls.add(pool.submit(() -> {
                    PutRecordResponse r = kinesis.putRecord(b -> b.streamName(streamName)
                            .data(SdkBytes.fromByteArray(e.data())).partitionKey(e.partitionKey()));
                    sent.put(e.id(), new Sent(e, streamArn, r.shardId(), r.sequenceNumber()));
                }));
            }
            for (Future<?> call : calls) {
                call.get();
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("PutRecord failed", e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    /** Splits an open shard in the middle of its hash key range. */
    String splitFirstOpenShard() {
        Shard shard = kinesis.listShards(r -> r.streamName(streamName)).shards().stream()
                .filter(s -> s.sequenceNumberRange().endingSequenceNumber() == null).findFirst().orElseThrow();
        HashKeyRange range = shard.hashKeyRange();
        BigInteger middle = new BigInteger(range.startingHashKey()).add(new BigInteger(range.endingHashKey()))
                .shiftRight(1);
        kinesis.splitShard(r -> r.streamName(streamName).shardToSplit(shard.shardId())
                .newStartingHashKey(middle.toString()));
        return shard.shardId();
    }

    /** The stream's open shards, in the order of their hash key ranges. */
    List<Shard> openShards() {
        return kinesis.listShards(r -> r.streamName(streamName)).shards().stream()
                .filter(s -> s.sequenceNumberRange().endingSequenceNumber() == null)
                .sorted(Comparator.comparing(s -> new BigInteger(s.hashKeyRange().startingHashKey()))).toList();
    }

    /** Merges two adjacent open shards (MergeShards) and returns the child. */
    Shard merge(Shard shard, Shard adjacent) throws InterruptedException {
        kinesis.mergeShards(r -> r.streamName(streamName).shardToMerge(shard.shardId())
                .adjacentShardToMerge(adjacent.shardId()));
        awaitStreamActive();
        return kinesis.listShards(r -> r.streamName(streamName)).shards().stream()
                .filter(s -> shard.shardId().equals(s.parentShardId())
                        && adjacent.shardId().equals(s.adjacentParentShardId())).findFirst().orElseThrow();
    }

    /** The highest sequence number sent to each shard of the stream the channel reads. */
    Map<String, String> expectedWatermarks() {
        return expectedWatermarks(streamArn);
    }

    /** The highest sequence number sent to each shard of a stream. */
    Map<String, String> expectedWatermarks(String stream) {
        Map<String, String> max = new TreeMap<>();
        for (Sent s : sent.values()) {
            if (!s.streamArn().equals(stream)) {
                continue;
            }
            max.merge(s.shardId(), s.sequenceNumber(),
                    (a, b) -> new BigInteger(a).compareTo(new BigInteger(b)) >= 0 ? a : b);
        }
        return max;
    }

    Catalog catalog() {
        if (catalog == null) {
            catalog = CatalogUtil.buildIcebergCatalog("delivery", catalogProperties, null);
        }
        return catalog;
    }

    /** The table's watermarks of the stream the channel reads. */
    Map<String, String> committedWatermarks() {
        return committedWatermarks(streamArn);
    }

    Map<String, String> committedWatermarks(String stream) {
        try {
            return committed(catalog().loadTable(table), stream);
        } catch (NoSuchTableException e) {
            return Map.of();
        }
    }

    private static Map<String, String> committed(Table t, String stream) {
        return ShardWatermarks.committed(t, stream);
    }

    /** Each stream records were sent to, with the highest sequence number sent to each of its shards. */
    private Map<String, Map<String, String>> expectedByStream() {
        Map<String, Map<String, String>> expected = new TreeMap<>();
        sent.values().forEach(s -> expected.computeIfAbsent(s.streamArn(), this::expectedWatermarks));
        return expected;
    }

    /**
     * Waits until the table's watermarks reach every record sent, of every stream the channel read, and its dead
     * letters are in the DLQ.
     */
    void awaitDelivered(long timeoutSeconds, ServiceUnderTest app) throws Exception {
        Map<String, Map<String, String>> expected = expectedByStream();
        long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
        Map<String, Map<String, String>> committed = Map.of();
        RuntimeException lastError = null;
        while (System.nanoTime() < deadline) {
            try {
                Map<String, Map<String, String>> read = new TreeMap<>();
                expected.keySet().forEach(stream -> read.put(stream, committedWatermarks(stream)));
                committed = read;
            } catch (RuntimeException e) {
                lastError = e; // a read that timed out on a loaded machine: poll again until the deadline
            }
            if (committed.equals(expected) && deadLettersPublished()) {
                return;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("not delivered in " + timeoutSeconds + " s: expected watermarks " + expected
                + " but the table holds " + committed + (committed.equals(expected) ? " and names dead letters not "
                + "yet in the DLQ" : "") + (lastError == null ? "" : "; last read failed: " + lastError)
                + "\nlog:\n" + app.tail());
    }

    /** The dead letters of a commit reach the DLQ just after it: true once those the table names are there. */
    private boolean deadLettersPublished() {
        try {
            return deadLettersPublished(catalog().loadTable(table));
        } catch (RuntimeException e) {
            return false; // read again at the next poll
        }
    }

    /** True once the staged dead letters the table names are in the DLQ: their files are deleted then. */
    static boolean deadLettersPublished(Table t) {
        return ShardWatermarks.stagedDeadLetterFiles(t).stream().noneMatch(f -> t.io().newInputFile(f).exists());
    }

    /** Reads the table back and the DLQ, and checks every event is in exactly one of them, once, unchanged. */
    Summary verify() throws IOException {
        Table t = catalog().loadTable(table);
        Map<Long, Integer> seen = new HashMap<>();
        List<String> mismatches = new ArrayList<>();
        long rows = 0;
        try (CloseableIterable<Record> records = IcebergGenerics.read(t).build()) {
            for (Record r : records) {
                rows++;
                long id = (Long) r.getField("id");
                seen.merge(id, 1, Integer::sum);
                Sent s = sent.get(id);
                if (s == null || !s.event().valid()) {
                    mismatches.add("row " + id + " was not sent as a valid event");
                    continue;
                }
                compare(id, s.event().row(), r, mismatches);
            }
        }
        long validSent = sent.values().stream().filter(s -> s.event().valid()).count();
        List<Long> duplicated = seen.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList();
        List<Long> missing = sent.values().stream().filter(s -> s.event().valid() && !seen.containsKey(s.event().id()))
                .map(s -> s.event().id()).toList();
        assertTrue(duplicated.isEmpty(), "rows delivered more than once: " + head(duplicated));
        assertTrue(missing.isEmpty(), "valid events missing from the table: " + head(missing));
        assertTrue(mismatches.isEmpty(), "rows that differ from what was sent: " + head(mismatches));
        assertEquals(validSent, rows);

        // One data file per partition per commit, and the watermarks of every shard in the summary.
        int commits = 0;
        int files = 0;
        for (Snapshot snapshot : t.snapshots()) {
            List<DataFile> added = new ArrayList<>();
            try {
                SnapshotChanges.builderFor(t).snapshot(snapshot).build().addedDataFiles().forEach(added::add);
            } catch (org.apache.iceberg.exceptions.NotFoundException
                    | software.amazon.awssdk.services.s3.model.NoSuchKeyException e) {
                // the service's table maintenance expired the snapshot (and its manifests) while this read it (S3FileIO
                // reports a manifest gone between listing and reading as either)
                Table now = catalog().loadTable(table);
                assertTrue(now.snapshot(snapshot.snapshotId()) == null, "snapshot " + snapshot.snapshotId()
                        + " is in the table and lost a file: " + e.getMessage());
                continue;
            }
            commits++;
            Map<String, Integer> perPartition = new HashMap<>();
            for (DataFile f : added) {
                files++;
                perPartition.merge(t.spec().partitionToPath(f.partition()), 1, Integer::sum);
            }
            perPartition.forEach((p, n) -> assertEquals(1, n, "files for partition " + p + " in snapshot "
                    + snapshot.snapshotId()));
        }
        expectedByStream().forEach((stream, watermarks) -> assertEquals(watermarks, committed(t, stream), stream));

        int dlq = verifyDeadLetters();
        return new Summary(rows, dlq, files, commits);
    }

    record Summary(long rows, int deadLetters, int files, int commits) {
    }

    private int verifyDeadLetters() throws IOException {
        Map<String, Sent> invalid = new HashMap<>();
        sent.values().stream().filter(s -> !s.event().valid())
                .forEach(s -> invalid.put(s.streamArn() + "/" + s.shardId() + "/" + s.sequenceNumber(), s));
        Map<String, Integer> entries = new HashMap<>();
        List<String> problems = new ArrayList<>();
        for (S3Object o : s3.listObjectsV2Paginator(r -> r.bucket(dlqBucket)).contents()) {
            assertTrue(o.key().startsWith("errors/"), "DLQ object outside the prefix: " + o.key());
            String body = s3.getObjectAsBytes(r -> r.bucket(dlqBucket).key(o.key())).asString(StandardCharsets.UTF_8);
            assertFalse(body.contains(Events.SECRET), "DLQ object " + o.key() + " holds payload bytes");
            for (String line : body.split("\n")) {
                JsonNode entry = JSON.readTree(line);
                String id = entry.path("streamArn").asText() + "/" + entry.path("shardId").asText() + "/"
                        + entry.path("sequenceNumber").asText();
                entries.merge(id, 1, Integer::sum);
                Sent s = invalid.get(id);
                if (s == null) {
                    problems.add("DLQ entry for a record that was not sent invalid: " + id);
                } else if (!s.event().expectedCode().equals(entry.path("errorCode").asText())) {
                    problems.add("event " + s.event().id() + " has code " + entry.path("errorCode").asText()
                            + ", expected " + s.event().expectedCode() + " (" + entry.path("errorMessage").asText() + ")");
                }
                if (entry.path("approximateArrivalTimestamp").asText().isEmpty()) {
                    problems.add("DLQ entry without its identifiers: " + line);
                }
            }
        }
        assertTrue(problems.isEmpty(), head(problems).toString());
        List<String> twice = entries.entrySet().stream().filter(e -> e.getValue() > 1).map(Map.Entry::getKey).toList();
        List<String> absent = invalid.keySet().stream().filter(k -> !entries.containsKey(k)).toList();
        assertTrue(twice.isEmpty(), "records dead-lettered more than once: " + head(twice));
        assertTrue(absent.isEmpty(), "invalid records missing from the DLQ: " + head(absent));
        return entries.size();
    }

    @SuppressWarnings("unchecked")
    private static void compare(long id, Map<String, Object> expected, Record actual, List<String> mismatches) {
        for (Map.Entry<String, Object> e : expected.entrySet()) {
            Object want = e.getValue();
            Object got = actual.getField(e.getKey());
            if (e.getKey().equals("event_time")) {
                got = got == null ? null : ((OffsetDateTime) got).toInstant();
            } else if (e.getKey().equals("device")) {
                Record device = (Record) got;
                got = device == null ? null : mapOf("model", device.getField("model"), "version", device.getField("version"));
            } else if (e.getKey().equals("id") || (want instanceof Integer && got instanceof Long)) {
                want = ((Number) want).longValue(); // an int column widened to long reads as long
            }
            if (want instanceof Map<?, ?> m && got instanceof Map<?, ?> g) {
                if (!new HashMap<>((Map<Object, Object>) m).equals(new HashMap<>((Map<Object, Object>) g))) {
                    mismatches.add(id + "." + e.getKey() + ": " + m + " != " + g);
                }
            } else if (!Objects.equals(want, got)) {
                mismatches.add(id + "." + e.getKey() + ": " + want + " != " + got);
            }
        }
    }

    private static Map<String, Object> mapOf(String k1, Object v1, String k2, Object v2) {
        Map<String, Object> m = new HashMap<>();
        m.put(k1, v1);
        m.put(k2, v2);
        return m;
    }

    private static <T> List<T> head(List<T> list) {
        return list.subList(0, Math.min(10, list.size()));
    }

    @Override
    public void close() {
        for (String stream : streams) {
            try {
                kinesis.deleteStream(r -> r.streamName(stream));
            } catch (RuntimeException ignored) {
                // the peer is transient anyway
            }
        }
        kinesis.close();
        s3.close();
        if (catalog instanceof java.io.Closeable closeable) {
            try {
                closeable.close();
            } catch (IOException ignored) {
                // test teardown
            }
        }
    }
}
