package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.catalog.S3TablesStub;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.Test;

/**
 * A channel with a KMS key of its own on an S3 Tables bucket: its table is created through S3 Tables' CreateTable
 * with the key (a stub of the control API that creates the table it is asked for in Apache Iceberg's REST catalog
 * server, which stands for the bucket's Iceberg endpoint), then takes its rows. A second bucket's control API answers
 * AccessDenied (the managed feature's "namespace created, table never created", a role without
 * s3tables:PutTableEncryption): that channel goes FAILED, and no table holds its records.
 */
class S3TablesKeyIT {

    @Test
    void aKeyedChannelsTableIsCreatedWithItsKeyAndARefusalFailsTheChannel() throws Exception {
        try (RESTCatalog rest = (RESTCatalog) CatalogUtil.buildIcebergCatalog("s3tables",
                        Peers.restCatalog(Peers.REST_CATALOG), null);
                DeliveryFixture keyed = new DeliveryFixture("s3t-keyed", DeliveryFixture.CatalogKind.REST, 2);
                DeliveryFixture denied = new DeliveryFixture("s3t-denied", DeliveryFixture.CatalogKind.REST, 2);
                S3TablesStub control = new S3TablesStub(rest);
                S3TablesStub refusing = new S3TablesStub(rest)) {
            refusing.refuse = "User: arn:aws:iam::" + Peers.ACCOUNT + ":user/delivery is not authorized to perform: "
                    + "s3tables:PutTableEncryption";
            keyed.encryptWith(EncryptionIT.KEY);
            keyed.inBucket("keyed-tables", entry(control), Peers.restCatalog(Peers.REST_CATALOG));
            denied.encryptWith(EncryptionIT.KEY);
            denied.inBucket("denied-tables", entry(refusing), Peers.restCatalog(Peers.REST_CATALOG));
            Map<String, String> config = new LinkedHashMap<>(keyed.appConfig);
            denied.appConfig.forEach((k, v) -> {
                if (k.startsWith("delivery.table-buckets.")) {
                    config.put(k, v);
                }
            });
            try (AllInOneProcess app = new AllInOneProcess(keyed.workDir, config).start()) {
                keyed.awaitActive(app);
                Events events = new Events(44, 1);
                keyed.produce(events.next(400, 20));
                keyed.awaitDelivered(120, app);
                keyed.produce(events.next(200, 20)); // a second commit into the table S3 Tables created
                keyed.awaitDelivered(120, app);
                DeliveryFixture.Summary summary = keyed.verify();
                System.out.println("s3tables key: " + summary + "; CreateTable " + control.requests.get(0).body()
                        .path("encryptionConfiguration"));
                assertEquals(570, summary.rows());
                assertTrue(summary.commits() >= 2, summary.toString());

                assertEquals(1, control.requests.size(), "one CreateTable: " + control.requests);
                S3TablesStub.Request create = control.requests.get(0);
                assertEquals("PUT /tables/" + keyed.tableBucketArn() + "/" + keyed.table.namespace(), create.line());
                assertTrue(create.authorization().startsWith("AWS4-HMAC-SHA256 Credential=" + Peers.KEY + "/"),
                        create.authorization());
                assertTrue(create.authorization().contains("/" + Peers.REGION + "/s3tables/aws4_request"),
                        create.authorization());
                assertEquals("aws:kms", create.body().path("encryptionConfiguration").path("sseAlgorithm").asText());
                assertEquals(EncryptionIT.KEY, create.body().path("encryptionConfiguration").path("kmsKeyArn")
                        .asText());
                Table table = keyed.catalog().loadTable(keyed.table);
                assertEquals(List.of("event_time_hour"), table.spec().fields().stream().map(f -> f.name()).toList());
                assertEquals(List.of("id", "event_time", "source", "count", "value", "ok", "tags", "attrs", "device",
                        "note"), table.schema().columns().stream().map(c -> c.name()).toList());
                assertNull(table.properties().get("delivery.setup"), "set up");
                assertEquals(keyed.channelArn(), table.properties().get("delivery.channel-arn"));

                denied.createChannel(app, 2);
                denied.awaitActive(app);
                denied.produce(new Events(45, 1).next(50, 10));
                String reason = denied.awaitStatus(app, "FAILED");
                System.out.println("s3tables key: the refused channel: " + reason);
                assertTrue(reason.contains(denied.tableBucketArn()) && reason.contains("refused to create table "
                        + denied.table), reason);
                assertTrue(app.log().contains(refusing.refuse), "the log names the refusal");
                assertEquals(1, refusing.requests.size(), "asked once: " + refusing.requests);
                assertFalse(rest.tableExists(denied.table), "no table took its records");
            }
        }
    }

    /** The S3 Tables bucket's entry: its Iceberg endpoint the REST catalog server, its control API the stub. */
    private static Map<String, String> entry(S3TablesStub control) {
        Map<String, String> entry = new LinkedHashMap<>(Peers.s3TablesEntry(Peers.REST_CATALOG));
        entry.put("s3tables.endpoint", control.uri());
        return entry;
    }
}
