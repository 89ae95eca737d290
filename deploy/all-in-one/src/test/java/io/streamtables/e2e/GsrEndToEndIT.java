package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.amazonaws.services.schemaregistry.common.AWSSerializerInput;
import com.amazonaws.services.schemaregistry.serializers.GlueSchemaRegistrySerializationFacade;
import com.amazonaws.services.schemaregistry.serializers.json.JsonDataWithSchema;
import com.amazonaws.services.schemaregistry.utils.AWSSchemaRegistryConstants;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.DataFormat;

/**
 * GSR_JSON end to end: records written by the official Glue Schema Registry serializer (uncompressed and
 * zlib) against the service's own Glue-compatible registry, through kinesis-local, read back from the table;
 * plain JSON and versions of another schema go to the DLQ as INVALID_SCHEMA.
 */
class GsrEndToEndIT {

    static final StaticCredentialsProvider CREDENTIALS =
            StaticCredentialsProvider.create(AwsBasicCredentials.create(Peers.KEY, Peers.SECRET));

    @Test
    void deliversRecordsOfTheGsrSerializer() throws Exception {
        try (DeliveryFixture fixture = new DeliveryFixture("gsr", DeliveryFixture.CatalogKind.SQLITE, 2, "GSR_JSON");
                AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start()) {
            fixture.awaitActive(app);
            GlueSchemaRegistrySerializationFacade plain = serializer(app, "NONE");
            GlueSchemaRegistrySerializationFacade zlib = serializer(app, "ZLIB");
            UUID version = plain.getOrRegisterSchemaVersion(AWSSerializerInput.builder()
                    .schemaDefinition(Events.SCHEMA).schemaName("events").transportName(fixture.streamName)
                    .dataFormat("JSON").build());
            UUID foreign = otherSchemaVersion(app);

            List<Events.Event> events = new ArrayList<>();
            for (Events.Event e : new Events(5, 1).next(3_000, 30)) {
                if (e.valid()) {
                    GlueSchemaRegistrySerializationFacade facade = e.id() % 2 == 0 ? plain : zlib;
                    byte[] gsr = facade.serialize(DataFormat.JSON, JsonDataWithSchema.builder(Events.SCHEMA,
                            new String(e.data(), StandardCharsets.UTF_8)).build(), version);
                    events.add(new Events.Event(e.id(), gsr, e.partitionKey(), null, e.row()));
                } else if (e.data()[0] == 3) {
                    // Events' "GSR bytes on a JSON channel": its JSON body sent plain to this GSR_JSON channel
                    byte[] body = java.util.Arrays.copyOfRange(e.data(), 18, e.data().length);
                    events.add(new Events.Event(e.id(), body, e.partitionKey(), "INVALID_SCHEMA", null));
                } else {
                    // An invalid body in a well-formed envelope (the serializer refuses to write one)
                    events.add(new Events.Event(e.id(), envelope(version, e.data()), e.partitionKey(),
                            e.expectedCode(), null));
                }
            }
            for (long id = 100_001; id <= 100_020; id++) {
                String doc = "{\"id\": " + id + ", \"event_time\": \"2026-01-01T00:00:00Z\", \"value\": 1, \"source\": \""
                        + Events.SECRET + "\"}";
                events.add(new Events.Event(id, envelope(foreign, doc.getBytes(StandardCharsets.UTF_8)), "pk-" + id,
                        "INVALID_SCHEMA", null));
            }
            fixture.produce(events);
            fixture.awaitDelivered(180, app);
            DeliveryFixture.Summary summary = fixture.verify();
            System.out.printf("gsr: %d rows, %d dead letters, %d data files in %d commits%n", summary.rows(),
                    summary.deadLetters(), summary.files(), summary.commits());
            assertEquals(events.stream().filter(Events.Event::valid).count(), summary.rows());
            assertTrue(summary.deadLetters() >= 120);
        }
    }

    static GlueSchemaRegistrySerializationFacade serializer(AllInOneProcess app, String compression) {
        return GlueSchemaRegistrySerializationFacade.builder()
                .configs(Map.of(
                        AWSSchemaRegistryConstants.AWS_ENDPOINT, app.url(),
                        AWSSchemaRegistryConstants.AWS_REGION, Peers.REGION,
                        AWSSchemaRegistryConstants.REGISTRY_NAME, "registry",
                        AWSSchemaRegistryConstants.SCHEMA_AUTO_REGISTRATION_SETTING, false,
                        AWSSchemaRegistryConstants.DATA_FORMAT, "JSON",
                        AWSSchemaRegistryConstants.COMPRESSION_TYPE, compression))
                .credentialProvider(CREDENTIALS)
                .build();
    }

    /** A version of another schema, registered through the official Glue client. */
    private static UUID otherSchemaVersion(AllInOneProcess app) {
        try (GlueClient glue = GlueClient.builder().endpointOverride(URI.create(app.url())).region(Region.of(Peers.REGION))
                .credentialsProvider(CREDENTIALS).httpClientBuilder(UrlConnectionHttpClient.builder()).build()) {
            return UUID.fromString(glue.createSchema(r -> r.registryId(id -> id.registryName("registry"))
                    .schemaName("other").dataFormat(DataFormat.JSON).compatibility("NONE")
                    .schemaDefinition(Events.SCHEMA.replace("\"Event\"", "\"Other\""))).schemaVersionId());
        }
    }

    /** The GSR wire format around a body: header version 3, no compression, the version id. */
    static byte[] envelope(UUID version, byte[] body) {
        return ByteBuffer.allocate(18 + body.length).put((byte) 3).put((byte) 0)
                .putLong(version.getMostSignificantBits()).putLong(version.getLeastSignificantBits()).put(body).array();
    }
}
