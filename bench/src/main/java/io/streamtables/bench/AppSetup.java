package io.streamtables.bench;

import io.streamtables.watermarks.Checkpoint;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotChanges;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketAlreadyExistsException;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;

/** The work folder and -D configuration of one all-in-one run, and what its table holds afterwards. */
final class AppSetup {

    final Path dir;
    final Map<String, String> config = new LinkedHashMap<>();
    final TableIdentifier table;
    /** The channel's stream: the table's checkpoint holds its shards' positions under it. */
    final String streamArn;

    /** System property with the S3 endpoint (the harness's S3Proxy) of the all-in-one's DLQ. */
    static final String S3_PROPERTY = "bench.s3";
    static final String DLQ_BUCKET = "dlq-bench";
    /** The channel of channels.json. */
    static final String CHANNEL = "bench-channel";

    AppSetup(Path dir, String stream, int freshnessSeconds, String kinesisEndpoint, int maxRecordsPerCall)
            throws Exception {
        this.dir = dir;
        Files.createDirectories(dir);
        Path schema = dir.resolve("schemas/registry/events.json");
        Files.createDirectories(schema.getParent());
        Files.writeString(schema, Events.SCHEMA);
        Path channels = dir.resolve("channels.json");
        Files.writeString(channels, Setup.channelJson(CHANNEL, stream, "bench", "events", freshnessSeconds,
                DLQ_BUCKET));
        this.table = TableIdentifier.of("bench", "events");
        this.streamArn = Setup.streamArn(stream);
        config.put("delivery.channels-file", channels.toString());
        config.put("delivery.schemas-dir", dir.resolve("schemas").toString());
        config.put("delivery.database-url", "jdbc:sqlite:" + dir.resolve("delivery.db"));
        config.put("delivery.min-data-freshness-seconds", "1");
        // the scale scenario keeps up to 168 partitions open; the default (100) would cut it early
        config.put("delivery.commit.max-open-partitions", "1000");
        config.put("delivery.kinesis.endpoint-override", kinesisEndpoint);
        config.put("delivery.kinesis.max-records-per-call", Integer.toString(maxRecordsPerCall));
        config.put("delivery.kinesis.aws.region", Setup.REGION);
        config.put("delivery.kms.describe-keys", "false"); // no KMS answers here
        config.put("delivery.kinesis.aws.credentials.type", "static");
        config.put("delivery.kinesis.aws.credentials.static-provider.access-key-id", "test");
        config.put("delivery.kinesis.aws.credentials.static-provider.secret-access-key", "test");
        // No record is rejected in these runs, but the channel's DLQ bucket must exist before it is ACTIVE
        String s3 = System.getProperty(S3_PROPERTY, "http://127.0.0.1:9");
        createBucket(s3, DLQ_BUCKET);
        config.put("quarkus.s3.endpoint-override", s3);
        config.put("quarkus.s3.path-style-access", "true");
        config.put("quarkus.s3.aws.region", Setup.REGION);
        config.put("quarkus.s3.aws.credentials.type", "static");
        config.put("quarkus.s3.aws.credentials.static-provider.access-key-id", "test");
        config.put("quarkus.s3.aws.credentials.static-provider.secret-access-key", "test");
        Setup.catalogProperties(dir.resolve("catalog")).forEach((k, v) -> config.put("delivery.catalog." + k, v));
        // the API's principal, whose keys the stages' schema lookups sign with
        config.put("delivery.auth.principals.service.access-key-id", "test");
        config.put("delivery.auth.principals.service.secret-access-key", "test");
        config.put("delivery.auth.principals.service.account-id", Setup.ACCOUNT);
        Files.createDirectories(dir.resolve("catalog"));
    }

    static void createBucket(String endpoint, String bucket) {
        try (S3Client s3 = S3Client.builder().httpClientBuilder(UrlConnectionHttpClient.builder())
                .endpointOverride(URI.create(endpoint)).forcePathStyle(true).region(Region.of(Setup.REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .build()) {
            s3.createBucket(b -> b.bucket(bucket));
        } catch (BucketAlreadyOwnedByYouException | BucketAlreadyExistsException exists) {
            // an earlier scenario of this run made it
        } catch (SdkClientException noS3) {
            System.err.println("no S3 at " + endpoint + ": the channel will wait for its DLQ bucket");
        }
    }

    Catalog catalog() {
        return Setup.catalog(dir.resolve("catalog"));
    }

    /** One committed snapshot: when, and the shard watermarks it holds. */
    record Commit(long timestampMillis, Map<String, String> watermarks, int files, long records) {
    }

    /** Snapshots and data files of the table after a run. */
    static final class Stats {
        final List<Commit> commits = new ArrayList<>();
        int files;
        int maxFilesPerPartitionPerCommit;
        long bytes;
        long maxFileBytes;
        long records;

        void into(Result r, String prefix) {
            r.put(prefix + "commits", commits.size());
            r.put(prefix + "files", files);
            r.put(prefix + "max_files_per_partition_per_commit", maxFilesPerPartitionPerCommit);
            r.put(prefix + "avg_file_mb", files == 0 ? 0 : bytes / (double) files / 1048576.0);
            r.put(prefix + "max_file_mb", maxFileBytes / 1048576.0);
            r.put(prefix + "committed_records", records);
        }
    }

    static Stats stats(Catalog catalog, TableIdentifier id, String streamArn, long afterMillis) {
        Table t = catalog.loadTable(id);
        Stats s = new Stats();
        List<Snapshot> snapshots = new ArrayList<>();
        t.snapshots().forEach(snapshots::add);
        snapshots.sort((a, b) -> Long.compare(a.sequenceNumber(), b.sequenceNumber()));
        for (Snapshot snapshot : snapshots) {
            Map<String, String> wm = Checkpoint.parse(snapshot.summary().get(Checkpoint.WATERMARKS_PROPERTY),
                    streamArn);
            int files = 0;
            long records = 0;
            if (snapshot.timestampMillis() >= afterMillis) {
                Map<String, Integer> perPartition = new HashMap<>();
                for (DataFile f : SnapshotChanges.builderFor(t).snapshot(snapshot).build().addedDataFiles()) {
                    files++;
                    records += f.recordCount();
                    s.bytes += f.fileSizeInBytes();
                    s.maxFileBytes = Math.max(s.maxFileBytes, f.fileSizeInBytes());
                    perPartition.merge(t.spec().partitionToPath(f.partition()), 1, Integer::sum);
                }
                for (int n : perPartition.values()) {
                    s.maxFilesPerPartitionPerCommit = Math.max(s.maxFilesPerPartitionPerCommit, n);
                }
                s.files += files;
                s.records += records;
            }
            s.commits.add(new Commit(snapshot.timestampMillis(), wm, files, records));
        }
        return s;
    }
}
