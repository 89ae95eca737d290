package io.streamtables.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.runtime.configuration.MemorySize;
import io.quarkus.runtime.configuration.MemorySizeConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.streamtables.api.AwsApiException;
import io.streamtables.auth.Caller;
import io.streamtables.config.DeliveryConfig;
import io.streamtables.config.QuotaConfig;
import io.streamtables.state.TestDatabase;
import io.streamtables.state.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Creates at a quota's edge, all at once, on both databases: {@value #THREADS} threads split over two control
 * planes that share one database (each its own {@link GlueRegistryApi} and pool, as two processes), each thread
 * creating one thing, in three accounts in turn. Exactly the quota is created, every other call is refused naming
 * the setting, and nothing fails otherwise. A fresh database per test (PostgreSQL: skipped when it does not answer).
 */
class RegistryQuotaRaceTest {

    static final int QUOTA = 5;
    static final int THREADS = 20;
    /** Each race runs in these accounts of one database in turn: an interleaving that would pass a quota, once. */
    static final List<String> ACCOUNTS = List.of("123456789001", "123456789002", "123456789003");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** DriverManager hands a caller only drivers of its own class loader (see SchemaRegistryStoreTest). */
    @BeforeAll
    static void drivers() throws ClassNotFoundException {
        Class.forName("org.sqlite.JDBC");
        Class.forName("org.postgresql.Driver");
    }

    @AfterAll
    static void dropSchemas() throws SQLException {
        TestDatabases.dropSchemas();
    }

    @ParameterizedTest
    @MethodSource("io.streamtables.state.TestDatabases#both")
    void registries(String kind) throws Exception {
        try (ControlPlanes planes = new ControlPlanes(kind, "registries-per-account", QUOTA)) {
            for (String account : ACCOUNTS) {
                Tenant t = planes.as(account);
                List<AwsApiException> refused = t.race(i -> request("RegistryName", "r" + i), "CreateRegistry");
                assertRefused(THREADS - QUOTA, "registries-per-account", refused);
                assertEquals(QUOTA, t.call(0, "ListRegistries", request("MaxResults", 100)).get("Registries")
                        .size());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("io.streamtables.state.TestDatabases#both")
    void schemas(String kind) throws Exception {
        try (ControlPlanes planes = new ControlPlanes(kind, "schemas-per-account", QUOTA)) {
            for (String account : ACCOUNTS) {
                Tenant t = planes.as(account);
                t.call(0, "CreateRegistry", request("RegistryName", "r"));
                List<AwsApiException> refused = t.race(i -> createSchema("s" + i, definition(i, 0)),
                        "CreateSchema");
                assertRefused(THREADS - QUOTA, "schemas-per-account", refused);
                assertEquals(QUOTA, t.call(1, "ListSchemas", request("MaxResults", 100)).get("Schemas").size());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("io.streamtables.state.TestDatabases#both")
    void versions(String kind) throws Exception {
        try (ControlPlanes planes = new ControlPlanes(kind, "versions-per-schema", QUOTA)) {
            for (String account : ACCOUNTS) {
                Tenant t = planes.as(account);
                t.call(0, "CreateRegistry", request("RegistryName", "r"));
                t.call(0, "CreateSchema", createSchema("s", definition(0, 0)));
                List<AwsApiException> refused = t.race(i -> registerVersion(definition(i + 1, 0)),
                        "RegisterSchemaVersion");
                assertRefused(THREADS - (QUOTA - 1), "versions-per-schema", refused);
                assertEquals(QUOTA, t.call(1, "GetSchema", request("SchemaId", schemaId()))
                        .get("LatestSchemaVersion").asLong());
            }
        }
    }

    /**
     * Definitions of {@code size} bytes each, the quota room for {@value #QUOTA} and a half: five are stored, the
     * others refused naming the setting. A definition the schema has costs nothing; deleting a schema frees its bytes.
     */
    @ParameterizedTest
    @MethodSource("io.streamtables.state.TestDatabases#both")
    void definitionBytes(String kind) throws Exception {
        int size = 1000;
        try (ControlPlanes planes = new ControlPlanes(kind, "definition-bytes-per-account", QUOTA * size + size / 2)) {
            for (String account : ACCOUNTS) {
                Tenant t = planes.as(account);
                t.call(0, "CreateRegistry", request("RegistryName", "r"));
                t.call(0, "CreateSchema", createSchema("s", definition(0, size)));
                List<AwsApiException> refused = t.race(i -> i % 2 == 0
                        ? createSchema("s" + i, definition(i + 1, size)) : registerVersion(definition(i + 1, size)),
                        i -> i % 2 == 0 ? "CreateSchema" : "RegisterSchemaVersion");
                assertRefused(THREADS - (QUOTA - 1), "definition-bytes-per-account", refused);

                JsonNode again = t.call(1, "RegisterSchemaVersion", registerVersion(definition(0, size)));
                assertEquals(1, again.get("VersionNumber").asLong(), "an equal definition is version 1, free");
                AwsApiException past = assertRefusal(() -> t.call(1, "CreateSchema",
                        createSchema("late", definition(99, size))));
                assertRefused(1, "definition-bytes-per-account", List.of(past));
                t.call(0, "DeleteSchema", request("SchemaId", schemaId()));
                t.call(1, "CreateSchema", createSchema("late", definition(99, size)));
            }
        }
    }

    /** Two control planes on one database, each with its own pool and registry API, a quota set to {@code value}. */
    static final class ControlPlanes implements AutoCloseable {

        private final List<TestDatabase> databases = new ArrayList<>();
        private final List<GlueRegistryApi> apis = new ArrayList<>();

        ControlPlanes(String kind, String quota, int value) {
            String url = TestDatabases.url(kind);
            Map<String, String> settings = Map.of("delivery.quotas." + quota, Integer.toString(value),
                    "delivery.database-url", url);
            SmallRyeConfig config = new SmallRyeConfigBuilder()
                    .withSources(new PropertiesConfigSource(settings, "test", 400))
                    .withConverter(MemorySize.class, 100, new MemorySizeConverter())
                    .withMapping(DeliveryConfig.class).withMapping(QuotaConfig.class).withValidateUnknown(false)
                    .build();
            for (int i = 0; i < 2; i++) {
                TestDatabase database = TestDatabase.open(url);
                databases.add(database);
                apis.add(new GlueRegistryApi(config.getConfigMapping(DeliveryConfig.class),
                        config.getConfigMapping(QuotaConfig.class), database.database(), new ObjectMapper()));
            }
        }

        Tenant as(String account) {
            return new Tenant(apis, new Caller("RACEKEY", account, false));
        }

        @Override
        public void close() {
            databases.forEach(TestDatabase::close);
        }
    }

    /** One account's caller of both control planes. */
    record Tenant(List<GlueRegistryApi> apis, Caller caller) {

        /** The answer of control plane {@code plane % 2}, as the endpoint would write it. */
        JsonNode call(int plane, String operation, JsonNode request) {
            return JSON.valueToTree(apis.get(plane % 2).handle(operation, request, caller));
        }

        List<AwsApiException> race(IntFunction<JsonNode> request, String operation) throws Exception {
            return race(request, i -> operation);
        }

        /** Call {@code i} of {@value #THREADS}, all released at once, each on plane {@code i % 2}: the refusals. */
        List<AwsApiException> race(IntFunction<JsonNode> request, IntFunction<String> operation) throws Exception {
            ExecutorService threads = Executors.newFixedThreadPool(THREADS);
            try {
                CountDownLatch go = new CountDownLatch(1);
                List<Future<AwsApiException>> calls = new ArrayList<>();
                for (int i = 0; i < THREADS; i++) {
                    int n = i;
                    JsonNode body = request.apply(n);
                    calls.add(threads.submit(() -> {
                        go.await();
                        try {
                            call(n, operation.apply(n), body);
                            return null;
                        } catch (AwsApiException e) {
                            return e;
                        }
                    }));
                }
                go.countDown();
                List<AwsApiException> refused = new ArrayList<>();
                for (Future<AwsApiException> call : calls) {
                    AwsApiException e = call.get(); // any other failure fails the test here
                    if (e != null) {
                        refused.add(e);
                    }
                }
                return refused;
            } finally {
                threads.shutdownNow();
            }
        }
    }

    private static void assertRefused(int expected, String setting, List<AwsApiException> refused) {
        for (AwsApiException e : refused) {
            assertEquals("ResourceNumberLimitExceededException", e.type(), e.getMessage());
            assertTrue(e.getMessage().contains("delivery.quotas." + setting), e.getMessage());
        }
        assertEquals(expected, refused.size(), "refused calls, past the quota of " + QUOTA);
    }

    private static AwsApiException assertRefusal(Runnable call) {
        try {
            call.run();
        } catch (AwsApiException e) {
            return e;
        }
        throw new AssertionError("not refused");
    }

    private static JsonNode request(String member, Object value) {
        return JSON.valueToTree(Map.of(member, value));
    }

    private static JsonNode schemaId() {
        return JSON.valueToTree(Map.of("RegistryName", "r", "SchemaName", "s"));
    }

    private static JsonNode createSchema(String name, String definition) {
        return JSON.valueToTree(Map.of("RegistryId", Map.of("RegistryName", "r"), "SchemaName", name,
                "DataFormat", "JSON", "Compatibility", "NONE", "SchemaDefinition", definition));
    }

    private static JsonNode registerVersion(String definition) {
        return JSON.valueToTree(Map.of("SchemaId", Map.of("RegistryName", "r", "SchemaName", "s"),
                "SchemaDefinition", definition));
    }

    /** A JSON Schema of its own for each {@code n}, padded to {@code size} UTF-8 bytes when that is more. */
    static String definition(int n, int size) {
        String head = "{\"type\":\"object\",\"title\":\"t" + n + "\",\"description\":\"";
        String tail = "\"}";
        int pad = Math.max(0, size - head.length() - tail.length());
        String text = head + "d".repeat(pad) + tail;
        assertTrue(size == 0 || text.getBytes(StandardCharsets.UTF_8).length == size);
        return text;
    }
}
