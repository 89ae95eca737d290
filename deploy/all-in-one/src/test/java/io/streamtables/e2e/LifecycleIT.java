package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.watermarks.ShardWatermarks;
import java.io.InputStream;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * SPEC C4–C6 against the running all-in-one: UpdateChannel changes the commit cadence without a restart,
 * DeleteChannel stops delivery and leaves the table readable, and a channel whose DLQ bucket changes owner or
 * whose table is repartitioned outside the service is SUSPENDED, which survives a restart (the dead letters the DLQ
 * refused are kept in the table's staged file the reason names).
 */
class LifecycleIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void updateChangesTheCadenceAndDeleteKeepsTheTable() throws Exception {
        try (DeliveryFixture fixture = new DeliveryFixture("cadence", DeliveryFixture.CatalogKind.SQLITE, 8);
                AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start();
                KinesisClient api = DeliveryFixture.api(app)) {
            fixture.awaitActive(app);
            Events events = new Events(11, 1);
            AtomicBoolean producing = new AtomicBoolean(true);
            Thread producer = new Thread(() -> {
                while (producing.get()) {
                    fixture.produce(events.next(20, 1_000_000));
                    sleep(300);
                }
            });
            producer.start();
            try {
                List<Long> slow = commitIntervals(fixture, 4, 90);
                api.updateChannel(r -> r.channelARN(fixture.channelArn())
                        .s3TablesDestinationConfiguration(d -> d.dataFreshnessInSeconds(1))
                        .loggingConfiguration(l -> l.cloudWatchLogs(c -> c.enabled(true)
                                .logGroupName(fixture.logGroup()).logStreamName("AfterUpdate"))));
                commitIntervals(fixture, 1, 30); // the cut under way at the old interval
                List<Long> fast = commitIntervals(fixture, 5, 60);
                System.out.printf("cadence: intervals at 8 s %s ms, after the update to 1 s %s ms%n", slow, fast);
                assertTrue(median(slow) >= 6_000, "commits at freshness 8 s came every " + slow + " ms");
                assertTrue(median(fast) <= 4_000, "commits after the update to 1 s came every " + fast + " ms");
                // SPEC C5: the logging changes without a restart too
                List<JsonNode> log = fixture.deliveryLog(app);
                assertEquals("AfterUpdate", log.get(log.size() - 1).path("logStreamName").asText(), log.toString());
                assertEquals("DestinationDelivery", log.get(0).path("logStreamName").asText());
            } finally {
                producing.set(false);
                producer.join();
            }
            fixture.awaitDelivered(60, app);

            // SPEC C6: delete stops delivery; what was delivered stays readable
            api.deleteChannel(r -> r.channelARN(fixture.channelArn()));
            long snapshot = fixture.catalog().loadTable(fixture.table).currentSnapshot().snapshotId();
            // SPEC C4: DELETING while the stages let go (the reader its shard leases), then gone
            assertEquals("DELETING", api.describeChannel(r -> r.channelARN(fixture.channelArn()))
                    .channelDescription().channelStatusAsString());
            long deletingSince = System.nanoTime();
            fixture.awaitGone(app);
            System.out.printf("delete: DELETING for %d ms%n", (System.nanoTime() - deletingSince) / 1_000_000);
            DeliveryFixture.Summary before = fixture.verify();
            List<Events.Event> late = events.next(200, 1_000_000);
            produceUnrecorded(fixture, late);
            Thread.sleep(5_000);
            Table table = fixture.catalog().loadTable(fixture.table);
            assertEquals(snapshot, table.currentSnapshot().snapshotId(), "a commit after DeleteChannel");
            assertEquals(before, fixture.verify(), "the table reads back the same after DeleteChannel");
            System.out.printf("delete: table %s still holds %d rows%n", fixture.table, before.rows());
        }
    }

    @Test
    void aDlqBucketOfAnotherOwnerSuspendsTheChannelForGood() throws Exception {
        try (DeliveryFixture fixture = new DeliveryFixture("dlq-owner", DeliveryFixture.CatalogKind.SQLITE, 1);
                RecordingS3Proxy proxy = new RecordingS3Proxy(Peers.S3)) {
            fixture.routeS3Through(proxy.endpoint());
            try (AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start()) {
                fixture.awaitActive(app);
                Events events = new Events(12, 1);
                fixture.produce(events.next(500, 50));
                fixture.awaitDelivered(60, app);
                DeliveryFixture.Summary delivered = fixture.verify();

                proxy.owner(fixture.dlqBucket, "111122223333"); // the bucket now belongs to another account
                List<DeliveryFixture.Sent> late = produceUnrecorded(fixture, events.next(500, 50));
                String reason = fixture.awaitSuspended(app);
                assertTrue(reason.contains("ExpectedBucketOwner " + Peers.ACCOUNT), reason);
                // dead letters are published after their commit: the commit the DLQ refused stays, its dead letters
                // are kept in the staged file the reason names, and nothing is committed after it
                Table table = fixture.catalog().loadTable(fixture.table);
                Map<String, String> watermarks = ShardWatermarks.committed(table, fixture.streamArn);
                List<DeliveryFixture.Sent> committed = late.stream().filter(s -> new BigInteger(s.sequenceNumber())
                        .compareTo(new BigInteger(watermarks.getOrDefault(s.shardId(), "0"))) <= 0).toList();
                assertTrue(!committed.isEmpty(), "the refused commit is not in the table");
                assertEquals(delivered.rows() + committed.stream().filter(s -> s.event().valid()).count(),
                        rows(table), "rows of the table");
                Matcher kept = Pattern.compile("kept in (\\S+);").matcher(reason);
                assertTrue(kept.find(), reason);
                List<String> keptSequences = new ArrayList<>();
                try (InputStream in = table.io().newInputFile(kept.group(1)).newStream()) {
                    for (JsonNode batch : JSON.readTree(in)) {
                        batch.path("rejects").forEach(r -> keptSequences.add(r.path("sequenceNumber").asText()));
                    }
                }
                assertEquals(committed.stream().filter(s -> !s.event().valid()).map(DeliveryFixture.Sent::sequenceNumber)
                        .sorted().toList(), keptSequences.stream().sorted().toList(), "dead letters kept");
                Thread.sleep(3_000);
                table.refresh();
                assertEquals(watermarks, ShardWatermarks.committed(table, fixture.streamArn), "a commit after the suspension");

                // SPEC C4: the state and its reason are stored, not held in memory
                app.kill();
                app.start();
                assertEquals(reason, fixture.awaitSuspended(app));
                System.out.printf("dlq-owner: SUSPENDED across a restart: %s%n", reason);
            }
        }
    }

    /**
     * The DLQ refuses two writes with 403 AccessDenied, as it does for an expired session, while the
     * bucket exists and is ExpectedBucketOwner's. The write is retried and every dead letter arrives; the channel
     * stays ACTIVE. Then the bucket is deleted: that cause is confirmed, and the channel is SUSPENDED saying so.
     */
    @Test
    void aDlqWriteRefusedOnceIsRetried() throws Exception {
        try (DeliveryFixture fixture = new DeliveryFixture("dlq-once", DeliveryFixture.CatalogKind.SQLITE, 1);
                RecordingS3Proxy proxy = new RecordingS3Proxy(Peers.S3)) {
            fixture.routeS3Through(proxy.endpoint());
            try (AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start();
                    KinesisClient api = DeliveryFixture.api(app)) {
                fixture.awaitActive(app);
                proxy.refuseWrites(fixture.dlqBucket, 2);
                fixture.produce(new Events(15, 1).next(500, 50));
                fixture.awaitDelivered(90, app);
                var channel = api.describeChannel(r -> r.channelARN(fixture.channelArn())).channelDescription();
                assertEquals("ACTIVE", channel.channelStatusAsString(), channel.channelStatusReason());
                DeliveryFixture.Summary delivered = fixture.verify();
                assertTrue(delivered.deadLetters() > 0, delivered.toString());
                List<JsonNode> refusals = fixture.deliveryLog(app).stream()
                        .filter(e -> e.path("event").asText().equals("DEAD_LETTERS_FAILED")).toList();
                assertEquals(2, refusals.size(), refusals.toString());
                assertTrue(refusals.get(0).path("error").asText().contains("the write is retried"), refusals.toString());
                System.out.printf("dlq-once: refused twice, retried, %s; %s%n", delivered,
                        refusals.get(0).path("error").asText());

                // a bucket that is gone is a confirmed cause: SUSPENDED, and the reason says which
                fixture.s3.listObjectsV2Paginator(r -> r.bucket(fixture.dlqBucket)).contents()
                        .forEach(o -> fixture.s3.deleteObject(r -> r.bucket(fixture.dlqBucket).key(o.key())));
                fixture.s3.deleteBucket(r -> r.bucket(fixture.dlqBucket));
                produceUnrecorded(fixture, new Events(16, 1).next(100, 10));
                String reason = fixture.awaitSuspended(app);
                assertTrue(reason.contains("the bucket does not exist"), reason);
                System.out.printf("dlq-gone: %s%n", reason);
            }
        }
    }

    @Test
    void aTableRepartitionedOutsideSuspendsTheChannel() throws Exception {
        try (DeliveryFixture fixture = new DeliveryFixture("repartition", DeliveryFixture.CatalogKind.SQLITE, 1);
                AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start()) {
            fixture.awaitActive(app);
            Events events = new Events(13, 1);
            fixture.produce(events.next(300, 50));
            fixture.awaitDelivered(60, app);
            DeliveryFixture.Summary delivered = fixture.verify();

            fixture.catalog().loadTable(fixture.table).updateSpec().removeField("event_time_hour")
                    .addField(Expressions.day("event_time")).commit();
            produceUnrecorded(fixture, events.next(300, 50));
            String reason = fixture.awaitSuspended(app);
            assertTrue(reason.contains("partition"), reason);
            assertEquals(delivered, fixture.verify(), "nothing committed to the repartitioned table");
            System.out.printf("repartition: %s%n", reason);
        }
    }

    /** A stream deleted under an ACTIVE channel fails the channel with a reason instead of being retried forever. */
    @Test
    void aChannelWhoseStreamIsDeletedFails() throws Exception {
        try (DeliveryFixture fixture = new DeliveryFixture("deleted", DeliveryFixture.CatalogKind.SQLITE, 1);
                AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start()) {
            fixture.awaitActive(app);
            fixture.kinesis.deleteStream(r -> r.streamName(fixture.streamName));
            String reason = fixture.awaitStatus(app, "FAILED");
            assertTrue(reason.contains("no longer exists"), reason);
        }
    }

    /** Sends events the table must not receive, so they are kept out of the fixture's expectations; returns them. */
    private static List<DeliveryFixture.Sent> produceUnrecorded(DeliveryFixture fixture, List<Events.Event> events) {
        Map<Long, DeliveryFixture.Sent> expected = new HashMap<>(fixture.sent);
        fixture.produce(events);
        List<DeliveryFixture.Sent> sent = events.stream().map(e -> fixture.sent.get(e.id())).toList();
        fixture.sent.clear();
        fixture.sent.putAll(expected);
        return sent;
    }

    private static long rows(Table table) throws java.io.IOException {
        long n = 0;
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            for (Record ignored : records) {
                n++;
            }
        }
        return n;
    }

    /** Waits for {@code count} more commits and returns the time between consecutive ones. */
    private static List<Long> commitIntervals(DeliveryFixture fixture, int count, int timeoutSeconds)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
        List<Long> times = new ArrayList<>();
        Long last = null;
        while (times.size() <= count && System.nanoTime() < deadline) {
            Table table;
            try {
                table = fixture.catalog().loadTable(fixture.table);
            } catch (org.apache.iceberg.exceptions.NoSuchTableException notYet) {
                Thread.sleep(100);
                continue;
            }
            Snapshot current = table.currentSnapshot();
            if (current != null && (last == null || current.snapshotId() != last)) {
                if (last != null || times.isEmpty()) {
                    times.add(current.timestampMillis());
                }
                last = current.snapshotId();
            }
            Thread.sleep(100);
        }
        assertNotNull(last, "no commit in " + timeoutSeconds + " s");
        assertTrue(times.size() > count, "only " + (times.size() - 1) + " commits in " + timeoutSeconds + " s");
        List<Long> intervals = new ArrayList<>();
        for (int i = 1; i < times.size(); i++) {
            intervals.add(times.get(i) - times.get(i - 1));
        }
        return intervals;
    }

    private static long median(List<Long> values) {
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.get(sorted.size() / 2);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
