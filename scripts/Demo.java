import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The demo's AWS side, run by scripts/demo.sh with the all-in-one's libraries on the class path:
 * {@code setup} creates the stream and buckets, {@code produce} sends sample events, {@code show} prints
 * what landed in the table and the DLQ.
 */
public class Demo {

    static final String STREAM = "demo-events";
    static final String KINESIS = System.getenv().getOrDefault("KINESIS_ENDPOINT", "http://127.0.0.1:4568");
    static final String S3 = System.getenv().getOrDefault("S3_ENDPOINT", "http://127.0.0.1:4570");
    static final StaticCredentialsProvider CREDENTIALS =
            StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test"));


    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "setup" -> setup();
            case "await-active" -> awaitActive(args[1]);
            case "produce" -> produce(Integer.parseInt(args[1]));
            case "await-delivered" -> awaitDelivered(args[1], Long.parseLong(args[2]));
            case "show" -> show(args[1]);
            default -> throw new IllegalArgumentException(
                    "setup | await-active URL | produce N | await-delivered CATALOG_DB ROWS | show CATALOG_DB");
        }
    }

    static void setup() throws InterruptedException {
        try (KinesisClient kinesis = kinesis(); S3Client s3 = s3()) {
            if (kinesis.listStreams().streamNames().contains(STREAM)) {
                kinesis.deleteStream(r -> r.streamName(STREAM));
                Thread.sleep(500);
            }
            kinesis.createStream(r -> r.streamName(STREAM).shardCount(2));
            for (String bucket : List.of("demo-dlq", "demo-warehouse")) {
                if (s3.listBuckets().buckets().stream().noneMatch(b -> b.name().equals(bucket))) {
                    s3.createBucket(r -> r.bucket(bucket));
                }
            }
            System.out.println("created stream " + STREAM + " (2 shards) and buckets demo-dlq, demo-warehouse");
        }
    }

    /** Asks the service's channel API, with the AWS SDK's own Kinesis client, until the channel is ACTIVE. */
    static void awaitActive(String serviceUrl) throws InterruptedException {
        String arn = "arn:aws:kinesis:us-east-1:000000000000:channel/demo-channel";
        try (KinesisClient api = KinesisClient.builder().httpClientBuilder(UrlConnectionHttpClient.builder())
                .endpointOverride(URI.create(serviceUrl)).region(Region.US_EAST_1)
                // the service's API takes only signed requests: the keys demo.sh made for this run
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
                        System.getenv("STREAMTABLES_ACCESS_KEY_ID"), System.getenv("STREAMTABLES_SECRET_ACCESS_KEY"))))
                .build()) {
            for (int i = 0; i < 120; i++) {
                var d = api.describeChannel(r -> r.channelARN(arn)).channelDescription();
                if (!"CREATING".equals(d.channelStatusAsString())) {
                    System.out.println("channel " + arn + " is " + d.channelStatusAsString()
                            + (d.channelStatusReason() == null ? "" : ": " + d.channelStatusReason()));
                    return;
                }
                Thread.sleep(500);
            }
            throw new IllegalStateException("channel still CREATING after 60 s");
        }
    }

    static void produce(int count) {
        try (KinesisClient kinesis = kinesis()) {
            List<PutRecordsRequestEntry> batch = new ArrayList<>();
            for (int i = 1; i <= count; i++) {
                String json = i % 100 == 0
                        ? "{\"id\": " + i + ", \"source\": \"app\", \"value\": 1.5}" // no event_time: dead-lettered
                        : "{\"id\": " + i + ", \"event_time\": \"" + Instant.now().minusSeconds(i * 7L)
                                + "\", \"source\": \"app-" + (i % 3) + "\", \"value\": " + (i * 0.25) + "}";
                batch.add(PutRecordsRequestEntry.builder().partitionKey("k" + i)
                        .data(SdkBytes.fromString(json, StandardCharsets.UTF_8)).build());
                if (batch.size() == 500 || i == count) {
                    List<PutRecordsRequestEntry> entries = List.copyOf(batch);
                    kinesis.putRecords(r -> r.streamName(STREAM).records(entries));
                    batch.clear();
                }
            }
            System.out.println("sent " + count + " events to " + STREAM + " (" + count / 100 + " without event_time)");
        }
    }

    /** Counts the table's rows every second, saying so, until {@code expected} have landed (two minutes at most). */
    static void awaitDelivered(String catalogDb, long expected) throws Exception {
        Catalog catalog = catalog(catalogDb);
        TableIdentifier id = TableIdentifier.of("demo", "events");
        long started = System.nanoTime();
        long rows = 0;
        while (System.nanoTime() - started < 120_000_000_000L) {
            if (catalog.tableExists(id)) {
                Snapshot current = catalog.loadTable(id).currentSnapshot();
                rows = current == null ? 0 : Long.parseLong(current.summary().getOrDefault("total-records", "0"));
            }
            System.out.printf("  %3d s: %d of %d rows in demo.events%n", (System.nanoTime() - started) / 1_000_000_000L,
                    rows, expected);
            if (rows >= expected) {
                return;
            }
            Thread.sleep(1_000);
        }
        throw new IllegalStateException(rows + " of " + expected + " rows after two minutes: see the service's log");
    }

    static Catalog catalog(String catalogDb) {
        Map<String, String> props = new java.util.HashMap<>(Map.of("type", "jdbc",
                "uri", "jdbc:sqlite:" + catalogDb, "jdbc.schema-version", "V1",
                "warehouse", "s3://demo-warehouse/warehouse", "io-impl", "org.apache.iceberg.aws.s3.S3FileIO",
                "http-client.type", "urlconnection", "s3.endpoint", S3, "s3.path-style-access", "true"));
        props.putAll(Map.of("s3.access-key-id", "test", "s3.secret-access-key", "test", "client.region", "us-east-1"));
        return CatalogUtil.buildIcebergCatalog("delivery", props, null);
    }

    static void show(String catalogDb) throws Exception {
        Table table = catalog(catalogDb).loadTable(TableIdentifier.of("demo", "events"));
        long rows = 0;
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            for (Record r : records) {
                if (rows++ < 5) {
                    System.out.println("  row " + r);
                }
            }
        }
        Snapshot current = table.currentSnapshot();
        System.out.println("table demo.events: " + rows + " rows in " + current.summary().get("total-data-files")
                + " Parquet files, " + count(table.snapshots()) + " commits");
        System.out.println("watermarks: " + table.properties().get("delivery.watermarks"));
        try (S3Client s3 = s3()) {
            for (S3Object o : s3.listObjectsV2(r -> r.bucket("demo-dlq")).contents()) {
                String body = s3.getObjectAsBytes(r -> r.bucket("demo-dlq").key(o.key())).asUtf8String();
                System.out.println("DLQ s3://demo-dlq/" + o.key() + ": " + body.lines().count() + " entries, first: "
                        + body.lines().findFirst().orElse(""));
            }
        }
    }

    static long count(Iterable<?> items) {
        long n = 0;
        for (Object ignored : items) {
            n++;
        }
        return n;
    }

    static KinesisClient kinesis() {
        return KinesisClient.builder().httpClientBuilder(UrlConnectionHttpClient.builder())
                .endpointOverride(URI.create(KINESIS)).region(Region.US_EAST_1).credentialsProvider(CREDENTIALS).build();
    }

    static S3Client s3() {
        return S3Client.builder().httpClientBuilder(UrlConnectionHttpClient.builder()).forcePathStyle(true)
                .endpointOverride(URI.create(S3)).region(Region.US_EAST_1).credentialsProvider(CREDENTIALS).build();
    }
}
