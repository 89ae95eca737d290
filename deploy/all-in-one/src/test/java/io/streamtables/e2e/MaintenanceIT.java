package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.MultipartUpload;

/**
 * The service maintains the tables it delivers to, while it delivers, with settings scaled down from days
 * to seconds: closed hours are compacted to one file, snapshots beyond ten expire, an unreferenced file is removed
 * once older than the orphan age set as a table property by another engine, an incomplete upload under the table's
 * folder is aborted (another writer's in the DLQ bucket is not); every row stays, exactly once.
 */
class MaintenanceIT {

    private static final int MAX_SNAPSHOTS = 10;

    @Test
    void theServiceCompactsExpiresAndCleansWhileItDelivers() throws Exception {
        try (DeliveryFixture fixture = new DeliveryFixture("maintenance", DeliveryFixture.CatalogKind.SQLITE, 1)) {
            fixture.appConfig.put("delivery.maintenance.enabled", "true");
            fixture.appConfig.put("delivery.maintenance.interval", "2s");
            fixture.appConfig.put("delivery.maintenance.compaction-grace", "0s");
            fixture.appConfig.put("delivery.maintenance.max-small-files", "4");
            fixture.appConfig.put("delivery.maintenance.max-snapshots", Integer.toString(MAX_SNAPSHOTS));
            fixture.appConfig.put("delivery.maintenance.min-orphan-age", "10s");
            fixture.appConfig.put("delivery.maintenance.orphan-interval", "0s"); // every run
            fixture.appConfig.put("quarkus.log.category.\"io.streamtables.maintenance\".level", "DEBUG");
            // another writer's upload in the DLQ bucket: not the service's to abort
            fixture.s3.createMultipartUpload(b -> b.bucket(fixture.dlqBucket).key("errors/theirs.jsonl"));
            try (AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start()) {
                fixture.awaitActive(app);
                Events events = new Events(23, 1);
                for (int batch = 0; batch < 8; batch++) { // a commit or more per batch: many small files per hour
                    fixture.produce(events.next(500, 40));
                    Thread.sleep(1_500);
                }
                fixture.awaitDelivered(180, app);

                // another engine's ALTER TABLE ... SET TBLPROPERTIES, and a file no commit references
                Table table = fixture.catalog().loadTable(fixture.table);
                for (int attempt = 1;; attempt++) { // channel tables leave retries to the writer (num-retries=0)
                    try {
                        table.refresh();
                        table.updateProperties().set("delivery.maintenance.orphan-age-ms", "15000").commit();
                        break;
                    } catch (org.apache.iceberg.exceptions.CommitFailedException raced) {
                        assertTrue(attempt < 20, "ALTER TABLE kept racing deliveries: " + raced.getMessage());
                    }
                }
                String orphan = table.location() + "/data/orphan-" + UUID.randomUUID() + ".parquet";
                try (OutputStream out = table.io().newOutputFile(orphan).create()) {
                    out.write("left by a crashed writer".getBytes());
                }
                String prefix = table.location().substring(("s3://" + fixture.warehouseBucket + "/").length());
                fixture.s3.createMultipartUpload(b -> b.bucket(fixture.warehouseBucket)
                        .key(prefix + "/data/crashed.parquet"));
                fixture.produce(events.next(500, 40)); // the current hour gets one more file
                fixture.awaitDelivered(120, app);

                long deadline = System.currentTimeMillis() + 120_000;
                String state = "";
                while (System.currentTimeMillis() < deadline) {
                    table.refresh();
                    Map<String, Integer> files = filesPerPartition(table);
                    int snapshots = count(table.snapshots());
                    boolean orphanGone = !table.io().newInputFile(orphan).exists();
                    List<String> uploads = uploads(fixture);
                    state = "files per partition " + files + ", " + snapshots + " snapshots, orphan "
                            + (orphanGone ? "removed" : "still there") + ", uploads " + uploads;
                    if (closedHoursHaveOneFile(files) && snapshots <= MAX_SNAPSHOTS && orphanGone
                            && uploads.equals(List.of("errors/theirs.jsonl"))) {
                        break;
                    }
                    Thread.sleep(1_000);
                }
                System.out.println("maintenance: " + state);
                table.refresh();
                Map<String, Integer> files = filesPerPartition(table);
                assertTrue(closedHoursHaveOneFile(files), state);
                assertTrue(count(table.snapshots()) <= MAX_SNAPSHOTS, state);
                assertFalse(table.io().newInputFile(orphan).exists(), state);
                assertEquals(List.of("errors/theirs.jsonl"), uploads(fixture), "the old upload under the table's "
                        + "folder is aborted, no other");
                assertTrue(table.properties().containsKey("delivery.maintenance.epoch"), "runs claim the table");

                DeliveryFixture.Summary summary = fixture.verify(); // every row once, every dead letter once
                assertEquals(4_500, summary.rows() + summary.deadLetters());
                String metrics = app.management("/q/metrics");
                assertTrue(EndToEndIT.metric(metrics, "delivery_maintenance_files_compacted_total",
                        fixture.channelArn()) > 0, "compactions are counted");
                assertTrue(EndToEndIT.metric(metrics, "delivery_maintenance_snapshots_expired_total",
                        fixture.channelArn()) > 0);
                assertTrue(EndToEndIT.metric(metrics, "delivery_maintenance_orphans_removed_total",
                        fixture.channelArn()) >= 1);
                assertTrue(app.log().contains("Maintained "), "a log line per run that changed the table");
            }
        }
    }

    /** The incomplete multipart uploads in the warehouse and DLQ buckets. */
    private static List<String> uploads(DeliveryFixture fixture) {
        return Stream.of(fixture.warehouseBucket, fixture.dlqBucket)
                .flatMap(bucket -> fixture.s3.listMultipartUploads(b -> b.bucket(bucket)).uploads().stream())
                .map(MultipartUpload::key).sorted().toList();
    }

    /** Every hour but the newest one (still open) holds one data file. */
    private static boolean closedHoursHaveOneFile(Map<String, Integer> files) {
        return files.size() >= 3 && files.entrySet().stream().limit(files.size() - 1L).allMatch(e -> e.getValue() == 1);
    }

    private static Map<String, Integer> filesPerPartition(Table table) throws IOException {
        Map<String, Integer> files = new TreeMap<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(t -> files.merge(table.spec().partitionToPath(t.file().partition()), 1, Integer::sum));
        }
        return files;
    }

    private static int count(Iterable<?> items) {
        int n = 0;
        for (Object ignored : items) {
            n++;
        }
        return n;
    }
}
