package io.streamtables.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.streamtables.controlplane.ChannelApiTest;
import io.streamtables.schema.SchemaSource;
import jakarta.inject.Inject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.InvalidArgumentException;

/**
 * The control plane configured as the all-in-one ships (the Glue API of this very server, a loopback address on its
 * port) with four worker threads: 16 CreateChannels at once, each looking its schema up, are all answered. Before,
 * each lookup called this server over HTTP from the worker thread of its CreateChannel, so that as many concurrent
 * creates as worker threads stalled the API until the Glue client gave up.
 */
@QuarkusTest
@TestProfile(ServedSchemaSourceTest.RegistryOfThisServer.class)
class ServedSchemaSourceTest {

    static final int PORT = freePort();
    static final String SCHEMA_ARN = ChannelApiTest.SCHEMA_ARN;

    public static class RegistryOfThisServer implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.ofEntries(Map.entry("quarkus.http.test-port", Integer.toString(PORT)),
                    Map.entry("quarkus.http.port", Integer.toString(PORT)),
                    Map.entry("quarkus.thread-pool.max-threads", "4"),
                    Map.entry("delivery.schema-registry.source", "glue"),
                    Map.entry("delivery.schema-registry.endpoint-override", "http://127.0.0.1:" + PORT),
                    Map.entry("delivery.schema-registry.aws.region", "us-east-1"),
                    Map.entry("delivery.schema-registry.aws.credentials.type", "static"),
                    Map.entry("delivery.schema-registry.aws.credentials.static-provider.access-key-id", "STAGESKEY"),
                    Map.entry("delivery.schema-registry.aws.credentials.static-provider.secret-access-key",
                            "stages-secret"));
        }
    }

    @Inject
    SchemaSource source;
    @TestHTTPResource("/")
    URL url;

    @Test
    void theRegistryOfThisServerIsReadInProcess() {
        ServedSchemaSource served = assertInstanceOf(ServedSchemaSource.class, source);
        SchemaSource.SchemaVersion latest = served.latest(SCHEMA_ARN);
        assertEquals(SCHEMA_ARN, latest.schemaArn());
        assertTrue(latest.definition().path("properties").has("event_time"), latest.definition().toString());
        assertEquals(latest, served.version(latest.id()));
        UUID unknown = UUID.randomUUID();
        SchemaSource.SchemaNotFoundException missing = assertThrows(SchemaSource.SchemaNotFoundException.class,
                () -> served.version(unknown));
        assertTrue(missing.getMessage().contains(unknown + " not found"), missing.getMessage());
        assertThrows(SchemaSource.SchemaNotFoundException.class, () -> served.latest(SCHEMA_ARN + "-nothing"));
    }

    @Inject
    io.streamtables.config.DeliveryConfig delivery;
    @Inject
    io.streamtables.config.QuotaConfig quotas;
    @Inject
    io.streamtables.state.ServiceDatabase database;

    /**
     * A version id the registry does not hold is asked for once a while, not once a record: before, every record
     * naming it cost a registry lookup in process (the stages over HTTP remembered misses already).
     */
    @Test
    void anUnknownVersionIsAskedForOnceAWhile() {
        java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        GlueRegistryApi counting = new GlueRegistryApi(delivery, quotas, database, new com.fasterxml.jackson.databind.ObjectMapper()) {
            @Override
            public Object handle(String operation, com.fasterxml.jackson.databind.JsonNode request,
                    io.streamtables.auth.Caller caller) {
                asked.incrementAndGet();
                return super.handle(operation, request, caller);
            }
        };
        ServedSchemaSource served = new ServedSchemaSource(counting, new com.fasterxml.jackson.databind.ObjectMapper(),
                "000000000000");
        UUID unknown = UUID.randomUUID();
        for (int i = 0; i < 100; i++) {
            assertThrows(SchemaSource.SchemaNotFoundException.class, () -> served.version(unknown));
        }
        assertEquals(1, asked.get());
        SchemaSource.SchemaVersion latest = served.latest(SCHEMA_ARN);
        served.version(latest.id());
        served.version(latest.id());
        assertEquals(4, asked.get(), "versions it holds are asked for as before (the stages cache them)");
    }

    @Test
    void concurrentCreatesPastTheWorkerThreadsAreAllAnswered() throws Exception {
        ExecutorService callers = Executors.newFixedThreadPool(16);
        try (KinesisClient api = ChannelApiTest.client(url.toURI(), false)) {
            List<Future<String>> created = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                created.add(callers.submit(() -> api.createChannel(ChannelApiTest.channel(ChannelApiTest.unique("c"),
                        ChannelApiTest.unique("s"), "ZSTD", 60)).channelDescription().channelStatusAsString()));
            }
            for (Future<String> f : created) {
                assertEquals("CREATING", f.get(30, TimeUnit.SECONDS));
            }
        } finally {
            callers.shutdownNow();
        }
    }

    /**
     * SPEC F4 at CreateChannel, which looks the schema's latest version up: a version of another dialect, registered
     * before the registry refused such definitions, is refused naming the field and the rule.
     */
    @Test
    void aSchemaOfAnotherDialectIsRefusedAtCreateChannel() throws Exception {
        String registry = ChannelApiTest.unique("older");
        String definition = "{\"$schema\": \"https://json-schema.org/draft/2020-12/schema\", \"type\": \"object\","
                + " \"properties\": {\"event_time\": {\"type\": \"string\", \"format\": \"date-time\"}},"
                + " \"required\": [\"event_time\"]}";
        SchemaRegistryStore store = new SchemaRegistryStore(database);
        java.time.Instant now = java.time.Instant.now();
        store.createRegistry("000000000000", registry, null, now, SchemaRegistryStore.Quotas.NONE);
        store.createSchema("000000000000", registry, "orders", "JSON", "NONE", null, definition,
                new com.fasterxml.jackson.databind.ObjectMapper().readTree(definition), now,
                SchemaRegistryStore.Quotas.NONE);
        String arn = "arn:aws:glue:us-east-1:000000000000:schema/" + registry + "/orders";
        try (KinesisClient api = ChannelApiTest.client(url.toURI(), false)) {
            InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> api.createChannel(
                    ChannelApiTest.channel(ChannelApiTest.unique("c"), ChannelApiTest.unique("s"), "ZSTD", 60)
                            .andThen(r -> r.streamConfigurationList(c -> c
                                    .streamARN("arn:aws:kinesis:us-east-1:000000000000:stream/s")
                                    .recordConfiguration(rc -> rc.recordFormatType("JSON").gsrSchemaARN(arn))))));
            assertEquals("StreamConfigurationList[0].RecordConfiguration.GSRSchemaARN " + arn
                    + ": schema root: $schema must be draft-04 (http://json-schema.org/draft-04/schema#) or draft-07 "
                    + "(http://json-schema.org/draft-07/schema#, the default): got "
                    + "https://json-schema.org/draft/2020-12/schema", e.awsErrorDetails().errorMessage());
        }
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
