package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.amazonaws.services.schemaregistry.common.AWSSerializerInput;
import com.amazonaws.services.schemaregistry.serializers.GlueSchemaRegistrySerializationFacade;
import com.amazonaws.services.schemaregistry.serializers.json.JsonDataWithSchema;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.catalog.DeliveryTables;
import io.streamtables.channel.Channel;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.DataFormat;

/**
 * Schema versions (SPEC F5): a GSR_JSON channel's table is built from the version pinned at activation and
 * says so; records of a version registered mid-stream with a new optional field and a wider integer evolve the table,
 * once, column ids kept, before any of their rows is committed; the service is killed -9 right after the evolution
 * and delivers every record once after its restart; rows before the new column read as null. Records of a version
 * that changes a column's type, adds a required field or changes the partition field are dead letters whose codes
 * name the change. A JSON channel tagged to follow the latest version evolves its table the same way.
 */
class SchemaEvolutionIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** v2: a new optional field, and count without its maximum: int → long. */
    static final String V2 = Events.SCHEMA
            .replace("\"count\": {\"type\": \"integer\", \"minimum\": 0, \"maximum\": 1000000}",
                    "\"count\": {\"type\": \"integer\", \"minimum\": 0}")
            .replace("\"note\": {\"type\": [\"string\", \"null\"]}",
                    "\"note\": {\"type\": [\"string\", \"null\"]}, \"region\": {\"type\": \"string\"}");
    /** v3: note becomes an integer, a type change. */
    static final String V3 = Events.SCHEMA.replace("\"note\": {\"type\": [\"string\", \"null\"]}",
            "\"note\": {\"type\": \"integer\"}");
    /** v5: a new required field. */
    static final String V5 = Events.SCHEMA.replace("\"note\": {\"type\": [\"string\", \"null\"]}",
            "\"note\": {\"type\": [\"string\", \"null\"]}, \"zone\": {\"type\": \"string\"}")
            .replace("\"required\": [\"id\", \"event_time\", \"value\"]",
                    "\"required\": [\"id\", \"event_time\", \"value\", \"zone\"]");
    /** v4: the partition field is a plain string. */
    static final String V4 = Events.SCHEMA.replace(
            "\"event_time\": {\"type\": \"string\", \"format\": \"date-time\"}", "\"event_time\": {\"type\": \"string\"}");

    @Test
    void aNewVersionEvolvesTheTableOnceAndAnIncompatibleOneIsDeadLettered() throws Exception {
        assertTrue(!V2.equals(Events.SCHEMA) && V2.contains("region") && !V3.equals(Events.SCHEMA)
                && !V4.equals(Events.SCHEMA) && V5.contains("\"zone\"]"), "the versions differ from the first");
        try (DeliveryFixture fixture = new DeliveryFixture("evolve", DeliveryFixture.CatalogKind.SQLITE, 2, "GSR_JSON");
                AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start()) {
            fixture.awaitActive(app);
            GlueSchemaRegistrySerializationFacade serializer = GsrEndToEndIT.serializer(app, "NONE");
            UUID v1 = serializer.getOrRegisterSchemaVersion(AWSSerializerInput.builder()
                    .schemaDefinition(Events.SCHEMA).schemaName("events").transportName(fixture.streamName)
                    .dataFormat("JSON").build());
            Events events = new Events(61, 1);
            fixture.produce(serialized(serializer, v1, Events.SCHEMA, events.next(600, 40), UnaryOperator.identity()));
            fixture.awaitDelivered(120, app);
            Table first = fixture.catalog().loadTable(fixture.table);
            assertEquals(v1.toString(), first.properties().get(DeliveryTables.SCHEMA_VERSION_PROPERTY),
                    "the table names the version it was built from");
            Map<String, Integer> ids = columnIds(first.schema());

            UUID v2 = register(app, V2);
            UUID v3 = register(app, V3);
            UUID v4 = register(app, V4);
            UUID v5 = register(app, V5);
            List<Events.Event> second = new ArrayList<>(serialized(serializer, v2, V2, events.next(400, 40),
                    doc -> {
                        doc.put("region", "eu-" + ((Number) doc.get("id")).longValue() % 3);
                        if (((Number) doc.get("id")).longValue() % 5 == 0) {
                            doc.put("count", 3_000_000_000L + ((Number) doc.get("id")).longValue());
                        }
                        return doc;
                    }));
            second.addAll(incompatible(serializer, v3, V3, events.next(30, 1_000_000), "INCOMPATIBLE_TYPE_CHANGE",
                    doc -> {
                        doc.put("note", 7);
                        return doc;
                    }));
            second.addAll(incompatible(serializer, v4, V4, events.next(30, 1_000_000),
                    "INCOMPATIBLE_PARTITION_CHANGE", UnaryOperator.identity()));
            second.addAll(incompatible(serializer, v5, V5, events.next(30, 1_000_000), "INCOMPATIBLE_REQUIRED_FIELD",
                    doc -> {
                        doc.put("zone", "z");
                        return doc;
                    }));
            fixture.produce(second);

            // kill -9 once the table evolved, before the rows of v2 are committed (freshness 2 s)
            long deadline = System.currentTimeMillis() + 90_000;
            while (!app.log().contains("evolved to schema") && System.currentTimeMillis() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(app.log().contains("evolved to schema"), "no evolution logged:\n" + app.tail());
            app.kill();
            app.start();
            fixture.produce(serialized(serializer, v2, V2, events.next(200, 40), doc -> {
                doc.put("region", "us");
                return doc;
            }));
            fixture.awaitDelivered(180, app);
            DeliveryFixture.Summary summary = fixture.verify();

            Table table = fixture.catalog().loadTable(fixture.table);
            Schema evolved = table.schema();
            ids.forEach((name, id) -> assertEquals(id, evolved.findField(name).fieldId(), "column id of " + name));
            assertEquals(ids.size() + 1, evolved.columns().size(), "one new column: " + evolved);
            assertEquals(Types.LongType.get(), evolved.findField("count").type(), "count widened");
            assertTrue(evolved.findField("region").isOptional());
            assertEquals(2, table.schemas().size(), "evolved once: " + table.schemas());
            assertEquals(1, app.log().split("evolved to schema", -1).length - 1, "one evolution, none after the restart");
            long before = 0;
            long after = 0;
            try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
                for (Record r : rows) {
                    if ((Long) r.getField("id") <= 600) {
                        assertNull(r.getField("region"), "a row before the column reads as null");
                        before++;
                    } else {
                        assertTrue(((String) r.getField("region")).matches("eu-[0-2]|us"));
                        after++;
                    }
                }
            }
            System.out.printf("evolve: %d rows of v1, %d of v2; %d dead letters; schema %d after the evolution: %s%n",
                    before, after, summary.deadLetters(), evolved.schemaId(), evolved.findField("region"));
            assertEquals(585, before, "600 of v1, 1 in 40 invalid");
            assertEquals(585, after, "400 and 200 of v2, 1 in 40 invalid");
            assertEquals(120, summary.deadLetters(), "30 invalid and 90 of incompatible versions");
        }
    }

    /**
     * A JSON channel tagged {@code delivery:schema-version=LATEST} decodes with the version registered after it was
     * activated, and its table evolves as a GSR_JSON channel's does; without the tag the records of the new version
     * would fail the pinned one (count over its maximum).
     */
    @Test
    void aJsonChannelFollowingTheLatestVersionEvolvesItsTable() throws Exception {
        try (DeliveryFixture fixture = new DeliveryFixture("follow", DeliveryFixture.CatalogKind.SQLITE, 2)) {
            fixture.tag(Channel.SCHEMA_VERSION_TAG, "LATEST");
            fixture.appConfig.put("delivery.schema-registry.latest-refresh", "1s");
            try (AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start()) {
                fixture.awaitActive(app);
                Events events = new Events(62, 1);
                fixture.produce(events.next(300, 40));
                fixture.awaitDelivered(120, app);
                register(app, V2);
                Thread.sleep(2_500); // past the refresh
                List<Events.Event> second = new ArrayList<>();
                for (Events.Event e : events.next(300, 40)) {
                    if (!e.valid()) {
                        second.add(e);
                        continue;
                    }
                    @SuppressWarnings("unchecked")
                    Map<String, Object> doc = JSON.readValue(e.data(), LinkedHashMap.class);
                    doc.put("region", "r" + e.id() % 2);
                    doc.put("count", 5_000_000_000L + e.id());
                    Map<String, Object> row = new LinkedHashMap<>(e.row());
                    row.put("region", doc.get("region"));
                    row.put("count", doc.get("count"));
                    second.add(new Events.Event(e.id(), JSON.writeValueAsBytes(doc), e.partitionKey(), null, row));
                }
                fixture.produce(second);
                fixture.awaitDelivered(120, app);
                DeliveryFixture.Summary summary = fixture.verify();
                Schema evolved = fixture.catalog().loadTable(fixture.table).schema();
                System.out.printf("follow: %s; %s, %s%n", summary, evolved.findField("region"),
                        evolved.findField("count"));
                assertEquals(585, summary.rows());
                assertEquals(Types.LongType.get(), evolved.findField("count").type());
                assertTrue(evolved.findField("region").isOptional());
            }
        }
    }

    /** Events as the official serializer writes them with a version; invalid ones as GsrEndToEndIT sends them. */
    private static List<Events.Event> serialized(GlueSchemaRegistrySerializationFacade serializer, UUID version,
            String schema, List<Events.Event> events, UnaryOperator<Map<String, Object>> change) throws Exception {
        List<Events.Event> out = new ArrayList<>();
        for (Events.Event e : events) {
            if (e.valid()) {
                @SuppressWarnings("unchecked")
                Map<String, Object> doc = change.apply(JSON.readValue(e.data(), LinkedHashMap.class));
                Map<String, Object> row = new LinkedHashMap<>(e.row());
                doc.forEach((k, v) -> {
                    if (k.equals("region") || k.equals("count")) {
                        row.put(k, v);
                    }
                });
                byte[] gsr = serializer.serialize(DataFormat.JSON, JsonDataWithSchema.builder(schema,
                        JSON.writeValueAsString(doc)).build(), version);
                out.add(new Events.Event(e.id(), gsr, e.partitionKey(), null, row));
            } else if (e.data()[0] == 3) {
                byte[] body = java.util.Arrays.copyOfRange(e.data(), 18, e.data().length);
                out.add(new Events.Event(e.id(), body, e.partitionKey(), "INVALID_SCHEMA", null));
            } else {
                out.add(new Events.Event(e.id(), GsrEndToEndIT.envelope(version, e.data()), e.partitionKey(),
                        e.expectedCode(), null));
            }
        }
        return out;
    }

    /** Valid events of a version the table cannot take: each is a dead letter with the code. */
    private static List<Events.Event> incompatible(GlueSchemaRegistrySerializationFacade serializer, UUID version,
            String schema, List<Events.Event> events, String code, UnaryOperator<Map<String, Object>> change)
            throws Exception {
        List<Events.Event> out = new ArrayList<>();
        for (Events.Event e : serialized(serializer, version, schema, events, change)) {
            out.add(new Events.Event(e.id(), e.data(), e.partitionKey(), code, null));
        }
        return out;
    }

    /** A new version of the channel's schema, through the official Glue client. */
    private static UUID register(AllInOneProcess app, String definition) {
        try (GlueClient glue = GlueClient.builder().endpointOverride(URI.create(app.url()))
                .region(Region.of(Peers.REGION)).credentialsProvider(GsrEndToEndIT.CREDENTIALS)
                .httpClientBuilder(UrlConnectionHttpClient.builder()).build()) {
            return UUID.fromString(glue.registerSchemaVersion(r -> r.schemaId(id -> id.registryName("registry")
                    .schemaName("events")).schemaDefinition(definition)).schemaVersionId());
        }
    }

    private static Map<String, Integer> columnIds(Schema schema) {
        Map<String, Integer> ids = new TreeMap<>();
        schema.columns().forEach(c -> ids.put(c.name(), c.fieldId()));
        return ids;
    }
}
