package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The all-in-one against real peers: 20 000 events (1 in 50 invalid, of five kinds) over a 4-shard stream in
 * kinesis-local, one shard split half-way, the warehouse on S3Proxy through S3FileIO; then the table and the DLQ
 * are read back and compared with what was sent.
 */
class EndToEndIT {

    @Test
    void deliversEveryRecordOnceWithSqliteCatalog() throws Exception {
        run("e2e-sqlite", DeliveryFixture.CatalogKind.SQLITE);
    }

    @Test
    void deliversEveryRecordOnceWithPostgresCatalog() throws Exception {
        Assumptions.assumeTrue(Peers.postgresAnswers(), "no PostgreSQL answers at " + Peers.POSTGRES);
        run("e2e-postgres", DeliveryFixture.CatalogKind.POSTGRES);
    }

    /**
     * The same on Apache Iceberg's own REST catalog server (scripts/peers.sh "rest"), named as an S3 Tables
     * bucket is: every catalog request signed with SigV4 for s3tables (TableBucketsIT checks the headers).
     */
    @Test
    void deliversEveryRecordOnceWithRestCatalog() throws Exception {
        run("e2e-rest", DeliveryFixture.CatalogKind.REST);
    }

    /** The value of a Prometheus sample with this channel's tag. */
    static long metric(String text, String name, String channelArn) {
        String prefix = name + "{channel=\"" + channelArn + "\"";
        return text.lines().filter(l -> l.startsWith(prefix)).mapToLong(l -> (long) Double.parseDouble(
                l.substring(l.lastIndexOf('}') + 1).trim())).findFirst()
                .orElseThrow(() -> new AssertionError("no sample " + prefix + " in /q/metrics:\n" + String.join("\n",
                        text.lines().filter(l -> l.startsWith("delivery")).toList())));
    }

    /** The value of a Prometheus sample with this channel's and stage's tags (any stage: "") and the labels given. */
    static double sample(String text, String name, String channelArn, String stage, String... labels) {
        return text.lines().filter(l -> l.startsWith(name + "{") && l.contains("channel=\"" + channelArn + "\"")
                        && (stage.isEmpty() || l.contains("stage=\"" + stage + "\""))
                        && java.util.Arrays.stream(labels).allMatch(l::contains))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf('}') + 1).trim())).findFirst()
                .orElseThrow(() -> new AssertionError("no sample " + name + " of stage " + stage + " in /q/metrics"));
    }

    private void run(String name, DeliveryFixture.CatalogKind kind) throws Exception {
        try (DeliveryFixture fixture = new DeliveryFixture(name, kind, 2);
                RecordingS3Proxy proxy = new RecordingS3Proxy(Peers.S3)) {
            fixture.routeS3Through(proxy.endpoint());
            try (AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start()) {
                deliver(name, fixture, app);
            }
            // SPEC E1: without a channel key, every object is written with SSE-S3; DLQ objects as the DLQ bucket says
            var written = EncryptionIT.writes(proxy, fixture, kind == DeliveryFixture.CatalogKind.REST);
            System.out.printf("%s: objects written %s%n", name, EncryptionIT.counts(written));
            written.forEach((objects, requests) -> requests.forEach(r -> {
                assertEquals(objects.equals("dlq") ? null : "AES256", r.header("x-amz-server-side-encryption"),
                        r.target());
                assertEquals(null, r.header("x-amz-server-side-encryption-aws-kms-key-id"), r.target());
            }));
        }
    }

    private void deliver(String name, DeliveryFixture fixture, AllInOneProcess app) throws Exception {
        fixture.awaitActive(app);
        Events events = new Events(42, 1);
        List<Events.Event> first = events.next(10_000, 50);
        fixture.produce(first);
        String split = fixture.splitFirstOpenShard();
        fixture.produce(events.next(10_000, 50));
        fixture.awaitDelivered(180, app);
        DeliveryFixture.Summary summary = fixture.verify();
        System.out.printf("%s: split %s; %d rows, %d dead letters, %d data files in %d commits%n", name, split,
                summary.rows(), summary.deadLetters(), summary.files(), summary.commits());
        assertTrue(summary.deadLetters() >= 100, "at least 100 invalid records");
        assertTrue(fixture.expectedWatermarks().size() >= 5, "records reached the split's children too: "
                + fixture.expectedWatermarks().keySet());

        // SPEC C7: the per-channel metrics count what the table and the DLQ hold
        String metrics = app.management("/q/metrics");
        // health and metrics on the management port only; the API port serves only the API
        for (String path : List.of("/q/metrics", "/q/health/ready")) {
            java.net.HttpURLConnection api = (java.net.HttpURLConnection) java.net.URI.create(app.url() + path)
                    .toURL().openConnection();
            assertEquals(404, api.getResponseCode(), path + " on the API port");
        }
        assertEquals(summary.rows(), metric(metrics, "delivery_records_delivered_total", fixture.channelArn()));
        assertEquals(summary.deadLetters(), metric(metrics, "delivery_records_dead_lettered_total", fixture.channelArn()));
        assertEquals(summary.files(), metric(metrics, "delivery_files_written_total", fixture.channelArn()));
        assertTrue(metric(metrics, "delivery_bytes_written_total", fixture.channelArn()) > 0);
        assertTrue(metric(metrics, "delivery_data_freshness_seconds", fixture.channelArn()) < 60);
        assertTrue(metric(metrics, "delivery_commits_total", fixture.channelArn()) >= 1);
        // the compiled fast path decodes the valid records, the reference decides the refused ones (a record
        // refused before either, as a GSR header on a JSON channel, counts in neither)
        double compiled = sample(metrics, "delivery_records_decoded_total", fixture.channelArn(), "", "path=\"compiled\"");
        double reference = sample(metrics, "delivery_records_decoded_total", fixture.channelArn(), "", "path=\"reference\"");
        assertTrue(compiled >= summary.rows() && reference > 0,
                compiled + " compiled, " + reference + " reference for " + summary);
        // chunk latency per stage: every stage handed chunks on, and each later stage saw them older. Compared by
        // the mean over every chunk since the start (_sum / _count): the published quantiles cover a rolling
        // one-minute window that each stage's timer rotates on its own clock, so two stages' p50s may describe
        // different chunks. convert measures the very chunks ingest measured, later; a commit's age is that of
        // its oldest record, at least the age any of its chunks had at convert.
        double previous = 0;
        for (String stage : List.of("ingest", "convert", "commit")) {
            double count = sample(metrics, "delivery_chunk_latency_seconds_count", fixture.channelArn(), stage);
            assertTrue(count > 0, stage);
            double mean = sample(metrics, "delivery_chunk_latency_seconds_sum", fixture.channelArn(), stage) / count;
            assertTrue(mean >= previous, stage + " mean " + mean + " s < " + previous + " s (" + count + " chunks)");
            previous = mean;
        }
        assertTrue(sample(metrics, "delivery_chunk_latency_seconds_count", fixture.channelArn(), "dlq") > 0);
        // lag per shard: every shard read now (the split's children; the parent is done) is caught up
        List<String> lags = metrics.lines().filter(l -> l.startsWith("delivery_shard_lag_seconds{")
                && l.contains(fixture.channelArn())).toList();
        assertTrue(lags.size() >= 2, "no shard lag gauges: " + lags);
        assertTrue(lags.stream().allMatch(l -> Double.parseDouble(l.substring(l.lastIndexOf('}') + 1).trim()) < 30),
                lags.toString());

        // SPEC C7: the channel's delivery log holds every commit, with its LoggingConfiguration target
        List<JsonNode> log = fixture.deliveryLog(app);
        List<JsonNode> commits = log.stream().filter(l -> l.path("event").asText().equals("COMMITTED")).toList();
        assertEquals(summary.rows(), commits.stream().mapToLong(l -> l.path("rows").asLong()).sum(), log.toString());
        assertEquals(summary.deadLetters(), commits.stream().mapToLong(l -> l.path("deadLetters").asLong()).sum());
        assertEquals(summary.commits(), commits.size());
        assertEquals("ACTIVE", log.get(0).path("event").asText(), log.toString());
        log.forEach(l -> {
            assertEquals(fixture.logGroup(), l.path("logGroupName").asText(), l.toString());
            assertEquals("DestinationDelivery", l.path("logStreamName").asText(), l.toString());
        });

        // SPEC C4: a table dropped behind the channel's back suspends it, for good
        fixture.catalog().dropTable(fixture.table, false);
        fixture.produce(events.next(100, 50));
        String reason = fixture.awaitSuspended(app);
        assertTrue(reason.contains(fixture.table.toString()), reason);
        JsonNode last = fixture.deliveryLog(app).get(fixture.deliveryLog(app).size() - 1);
        assertEquals("SUSPENDED", last.path("event").asText(), last.toString());
        String logged = last.path("reason").asText().replaceFirst("\\.$", "");
        assertTrue(reason.startsWith("Suspended: " + logged + "."), reason + " against the log's " + logged);
    }
}
