package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The table bucket a channel names decides its catalog. Two channels deliver tables of one name into two
 * buckets: one on a JDBC catalog (SQLite), one on Apache Iceberg's own REST catalog server (scripts/peers.sh "rest")
 * named as an S3 Tables bucket is (type s3tables), its catalog requests through {@link RecordingS3Proxy}, which
 * records their SigV4 headers. A third bucket's catalog cannot be built (a FileIO class that does not exist): its
 * channel goes FAILED with a reason naming the bucket and the setting. A fourth bucket's catalog refuses to create
 * tables (403, as S3 Tables refuses a caller that may not): its channel goes FAILED once records come, and no table
 * holds them.
 */
class TableBucketsIT {

    @Test
    void eachTableBucketIsItsOwnCatalog() throws Exception {
        try (DeliveryFixture jdbc = new DeliveryFixture("bucket-jdbc", DeliveryFixture.CatalogKind.SQLITE, 2);
                DeliveryFixture rest = new DeliveryFixture("bucket-rest", DeliveryFixture.CatalogKind.REST, 2);
                DeliveryFixture broken = new DeliveryFixture("bucket-broken", DeliveryFixture.CatalogKind.SQLITE, 2);
                DeliveryFixture refused = new DeliveryFixture("bucket-refused", DeliveryFixture.CatalogKind.REST, 2);
                RecordingS3Proxy signed = new RecordingS3Proxy(Peers.REST_CATALOG);
                RecordingS3Proxy refusing = new RecordingS3Proxy(Peers.REST_CATALOG)) {
            Map<String, String> jdbcCatalog = new LinkedHashMap<>(jdbc.catalogProperties);
            jdbc.inBucket("jdbc-tables", jdbcCatalog, jdbcCatalog);
            rest.tableNamed(jdbc.table); // the same namespace and name, in another bucket
            rest.inBucket("rest-tables", Peers.s3TablesEntry(signed.endpoint()), Peers.restCatalog(Peers.REST_CATALOG));
            // an S3 Tables bucket (readiness cannot check those) with a FileIO that does not exist
            Map<String, String> noSuchFileIo = new LinkedHashMap<>(Peers.s3TablesEntry(Peers.REST_CATALOG));
            noSuchFileIo.put("io-impl", "org.example.NoSuchFileIO");
            broken.inBucket("broken-tables", noSuchFileIo, Map.of());
            refusing.refuseTableCreation();
            refused.inBucket("refused-tables", Peers.s3TablesEntry(refusing.endpoint()),
                    Peers.restCatalog(Peers.REST_CATALOG));
            Map<String, String> config = new LinkedHashMap<>(jdbc.appConfig);
            for (DeliveryFixture other : List.of(rest, broken, refused)) {
                other.appConfig.forEach((k, v) -> {
                    if (k.startsWith("delivery.table-buckets.")) {
                        config.put(k, v);
                    }
                });
            }
            try (AllInOneProcess app = new AllInOneProcess(jdbc.workDir, config).start()) {
                jdbc.awaitActive(app);
                rest.createChannel(app, 2);
                rest.awaitActive(app);
                broken.createChannel(app, 2);
                String reason = broken.awaitStatus(app, "FAILED");
                System.out.println("table buckets: the broken bucket's channel: " + reason);
                // the tenant's reason names its ARN; the operator's setting and error are in the log
                assertTrue(reason.contains(broken.tableBucketArn()) && reason.contains("ask the operator")
                        && !reason.contains("delivery.table-buckets") && !reason.contains("NoSuchFileIO"), reason);
                String log = app.log();
                assertTrue(log.contains("delivery.table-buckets.broken-tables.*")
                        && log.contains("org.example.NoSuchFileIO"), "the log names the setting and the error");

                // the managed feature stays ACTIVE with no table ("namespace created, table never created")
                refused.createChannel(app, 2);
                refused.awaitActive(app);
                refused.produce(new Events(43, 1).next(50, 10));
                String refusal = refused.awaitStatus(app, "FAILED");
                System.out.println("table buckets: the refusing bucket's channel: " + refusal);
                assertTrue(refusal.contains(refused.tableBucketArn()) && refusal.contains("refused to create table "
                        + refused.table) && refusal.contains("ask the operator")
                        && !refusal.contains("s3tables:CreateTable"), refusal);
                assertTrue(app.log().contains("(delivery.table-buckets.refused-tables.*) refused to create table "
                        + refused.table + ": Forbidden: User is not authorized to perform: s3tables:CreateTable"),
                        "the log names the setting and the refusal");
                assertFalse(refused.catalog().tableExists(refused.table), "no table took its records");

                jdbc.produce(new Events(41, 1).next(600, 20));
                rest.produce(new Events(42, 1).next(600, 20));
                jdbc.awaitDelivered(120, app);
                rest.awaitDelivered(120, app);
                DeliveryFixture.Summary inJdbc = jdbc.verify();
                DeliveryFixture.Summary inRest = rest.verify();
                System.out.printf("table buckets: %s in the JDBC bucket, %s in the REST bucket%n", inJdbc, inRest);
                assertEquals(570, inJdbc.rows());
                assertEquals(570, inRest.rows());
                assertEquals(jdbc.channelArn(), jdbc.catalog().loadTable(jdbc.table).properties()
                        .get("delivery.channel-arn"));
                assertEquals(rest.channelArn(), rest.catalog().loadTable(rest.table).properties()
                        .get("delivery.channel-arn"), "the REST bucket's table is the second channel's own");
            }

            List<RecordingS3Proxy.Request> requests = signed.requests();
            System.out.printf("table buckets: %d requests to the REST catalog, e.g. %s%n", requests.size(),
                    requests.isEmpty() ? "-" : requests.get(0).header("authorization"));
            assertTrue(requests.stream().anyMatch(r -> r.method().equals("POST") && r.target().contains("/tables/")),
                    "no commit reached the REST catalog through the proxy: " + requests);
            for (RecordingS3Proxy.Request r : requests) {
                String authorization = r.header("authorization");
                assertNotNull(authorization, r.method() + " " + r.target() + " is not signed");
                assertTrue(authorization.matches("AWS4-HMAC-SHA256 Credential=" + Peers.KEY + "/\\d{8}/"
                        + Peers.REGION + "/s3tables/aws4_request, SignedHeaders=[a-z0-9;-]*\\bhost\\b[a-z0-9;-]*, "
                        + "Signature=[0-9a-f]{64}"), authorization);
                assertNotNull(r.header("x-amz-date"), r.target());
                assertFalse(r.headers().containsKey("x-amz-security-token"), "no session token was configured");
            }
        }
    }
}
