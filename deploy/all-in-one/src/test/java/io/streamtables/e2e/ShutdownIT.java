package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * SIGTERM in the middle of a freshness interval. The commit stage commits what it buffered (rows and dead letters)
 * before it exits, well within a container's grace period, and leaves no data file outside the table; stopping its
 * timer and dropping its open writers would leave orphan files, and the interval would be read again.
 */
class ShutdownIT {

    @Test
    void sigtermCommitsWhatIsBufferedAndLeavesNoFileBehind() throws Exception {
        try (DeliveryFixture fixture = new DeliveryFixture("sigterm", DeliveryFixture.CatalogKind.SQLITE, 120);
                AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start()) {
            fixture.awaitActive(app);
            Events events = new Events(17, 1);
            fixture.produce(events.next(2_000, 40));
            Thread.sleep(10_000); // read and buffered; the freshness interval is 120 s
            assertTrue(fixture.committedWatermarks().isEmpty(), "committed before the SIGTERM");

            Duration exit = app.terminate(30);
            System.out.printf("sigterm: exited %d ms after SIGTERM%n", exit.toMillis());
            assertEquals(fixture.expectedWatermarks(), fixture.committedWatermarks(), "committed at the SIGTERM");
            DeliveryFixture.Summary atExit = fixture.verify();
            assertEquals(2_000, atExit.rows() + atExit.deadLetters());
            assertEquals(List.of(), filesOutsideTheTable(fixture));
            assertTrue(exit.toSeconds() < 25, "exit took " + exit);

            app.start(); // and delivery goes on, exactly once (at 1 s now, not to wait two minutes)
            try (KinesisClient api = DeliveryFixture.api(app)) {
                api.updateChannel(r -> r.channelARN(fixture.channelArn())
                        .s3TablesDestinationConfiguration(d -> d.dataFreshnessInSeconds(1)));
            }
            fixture.produce(events.next(500, 40));
            fixture.awaitDelivered(120, app);
            DeliveryFixture.Summary summary = fixture.verify();
            assertEquals(2_500, summary.rows() + summary.deadLetters());
        }
    }

    /** Parquet files in the warehouse that no snapshot of the table names. */
    private static List<String> filesOutsideTheTable(DeliveryFixture fixture) throws Exception {
        Table table = fixture.catalog().loadTable(fixture.table);
        Set<String> inTable = new HashSet<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
            tasks.forEach(t -> inTable.add(t.file().location().replaceFirst("^s3://[^/]+/", "")));
        }
        List<String> outside = new ArrayList<>();
        for (S3Object o : fixture.s3.listObjectsV2Paginator(r -> r.bucket(fixture.warehouseBucket)).contents()) {
            if (o.key().endsWith(".parquet") && !inTable.contains(o.key())) {
                outside.add(o.key());
            }
        }
        return outside;
    }
}
