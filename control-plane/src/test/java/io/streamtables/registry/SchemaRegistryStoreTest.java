package io.streamtables.registry;

import static io.streamtables.registry.SchemaRegistryStore.Quotas.NONE;
import static io.streamtables.registry.TestGlue.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import io.streamtables.registry.SchemaRegistryStore.OverQuotaException;
import io.streamtables.registry.SchemaRegistryStore.Quotas;
import io.streamtables.registry.SchemaRegistryStore.Registered;
import io.streamtables.registry.SchemaRegistryStore.Registry;
import io.streamtables.registry.SchemaRegistryStore.Schema;
import io.streamtables.registry.SchemaRegistryStore.Version;
import io.streamtables.registry.SchemaRegistryStore.VersionItem;
import io.streamtables.state.TestDatabase;
import io.streamtables.state.TestDatabases;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The store on both databases the service supports, without Quarkus: a fresh database per test
 * ({@link TestDatabases}: SQLite, and PostgreSQL skipped when it does not answer).
 */
class SchemaRegistryStoreTest {

    static final String ACCOUNT = "111111111111";
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * DriverManager hands a caller only drivers of its own class loader; when a @QuarkusTest ran first in this JVM,
     * the registered drivers are those of the Quarkus class loader, so register ours.
     */
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
    void registriesSchemasAndVersions(String kind) throws IOException {
        SchemaRegistryStore store = open(TestDatabases.url(kind));
        String registry = unique("reg");
        String schema = unique("orders");
        Instant t0 = Instant.parse("2026-01-02T03:04:05.678Z");

        assertTrue(store.createRegistry(ACCOUNT, registry, "desc", t0, NONE));
        assertFalse(store.createRegistry(ACCOUNT, registry, "other", t0, NONE), "already exists");
        assertEquals("desc", store.registry(ACCOUNT, registry).orElseThrow().description());
        assertEquals(t0, store.registry(ACCOUNT, registry).orElseThrow().created());
        assertTrue(store.registries(ACCOUNT, null, 100).stream().anyMatch(r -> r.name().equals(registry)));

        String v1Text = "{\"type\": \"object\", \"properties\": {\"id\": {\"type\": \"string\"}}}";
        Version v1 = store.createSchema(ACCOUNT, registry, schema, "JSON", "NONE", null, v1Text, tree(v1Text), t0, NONE).orElseThrow();
        assertEquals(1, v1.number());
        assertTrue(store.createSchema(ACCOUNT, registry, schema, "JSON", "NONE", null, v1Text, tree(v1Text), t0, NONE).isEmpty(),
                "already exists");

        Instant t1 = t0.plusSeconds(60);
        String v2Text = "{\"type\": \"object\", \"properties\": {\"id\": {\"type\": \"integer\"}}}";
        Registered v2 = store.registerVersion(ACCOUNT, registry, schema, v2Text, tree(v2Text), t1, NONE).orElseThrow();
        assertTrue(v2.created());
        assertEquals(2, v2.version().number());
        assertNotEquals(v1.id(), v2.version().id());

        // the same tree as v1 with other key order and blanks: v1, nothing added, updated time unchanged
        String v1Again = "{ \"properties\" : { \"id\" : { \"type\" : \"string\" } }, \"type\" : \"object\" }";
        Registered again = store.registerVersion(ACCOUNT, registry, schema, v1Again, tree(v1Again), t1.plusSeconds(60), NONE).orElseThrow();
        assertFalse(again.created());
        assertEquals(v1.id(), again.version().id());
        Schema stored = store.schema(ACCOUNT, registry, schema).orElseThrow();
        assertEquals(2, stored.latestVersion());
        assertEquals(t0, stored.created());
        assertEquals(t1, stored.updated());

        assertEquals(v2Text, store.version(v2.version().id()).orElseThrow().definition());
        assertEquals(v1Text, store.version(ACCOUNT, registry, schema, 1).orElseThrow().definition());
        assertEquals(v1.id(), store.versionByDefinition(ACCOUNT, registry, schema, tree(v1Again)).orElseThrow().id());
        assertTrue(store.versionByDefinition(ACCOUNT, registry, schema, tree("{\"type\": \"string\"}")).isEmpty());
        assertEquals(List.of(schema), store.schemas(ACCOUNT, registry, null, null, 100).stream().map(Schema::name).toList());
        assertTrue(store.registerVersion(ACCOUNT, registry, schema + "-x", v1Text, tree(v1Text), t1, NONE).isEmpty(), "no such schema");

        assertTrue(store.deleteSchema(ACCOUNT, registry, schema));
        assertFalse(store.deleteSchema(ACCOUNT, registry, schema));
        assertTrue(store.schema(ACCOUNT, registry, schema).isEmpty());
        assertTrue(store.version(v1.id()).isEmpty());
        assertTrue(store.version(v2.version().id()).isEmpty());
        assertTrue(store.schemas(ACCOUNT, registry, null, null, 100).isEmpty());
    }

    @ParameterizedTest
    @MethodSource("io.streamtables.state.TestDatabases#both")
    void reopeningKeepsTheData(String kind) throws IOException {
        String url = TestDatabases.url(kind);
        String registry = unique("reg");
        String text = "{\"type\": \"object\"}";
        Version v1 = open(url).createSchema(ACCOUNT, registry, "s", "JSON", "NONE", null, text, tree(text), Instant.now(), NONE)
                .orElseThrow();
        SchemaRegistryStore reopened = open(url); // the migrations find their history: nothing to do
        assertEquals(v1, reopened.version(v1.id()).orElseThrow());
        assertEquals(1, reopened.schema(ACCOUNT, registry, "s").orElseThrow().latestVersion());
    }

    /** Accounts own their registries: the same names in two accounts are two schemas, each seen by its owner. */
    @ParameterizedTest
    @MethodSource("io.streamtables.state.TestDatabases#both")
    void twoAccountsKeepApartUnderTheSameNames(String kind) throws IOException {
        SchemaRegistryStore store = open(TestDatabases.url(kind));
        String registry = unique("reg");
        String other = "222222222222";
        String mine = "{\"type\": \"object\"}";
        String theirs = "{\"type\": \"object\", \"required\": [\"a\"]}";
        assertTrue(store.createRegistry(ACCOUNT, registry, null, Instant.now(), NONE));
        assertTrue(store.createRegistry(other, registry, null, Instant.now(), NONE), "the other account's own registry");
        store.createSchema(ACCOUNT, registry, "s", "JSON", "NONE", null, mine, tree(mine), Instant.now(), NONE).orElseThrow();
        Version v = store.createSchema(other, registry, "s", "JSON", "NONE", null, theirs, tree(theirs), Instant.now(), NONE)
                .orElseThrow();
        assertEquals(other, store.version(v.id()).orElseThrow().account());
        assertEquals(mine, store.version(ACCOUNT, registry, "s", 1).orElseThrow().definition());
        assertEquals(theirs, store.version(other, registry, "s", 1).orElseThrow().definition());
        assertTrue(store.versionByDefinition(ACCOUNT, registry, "s", tree(theirs)).isEmpty());
        assertTrue(store.deleteSchema(other, registry, "s"));
        assertTrue(store.schema(ACCOUNT, registry, "s").isPresent(), "deleting theirs leaves mine");
        assertEquals(List.of(registry), store.registries(other, null, 100).stream().map(SchemaRegistryStore.Registry::name)
                .filter(registry::equals).toList());
    }

    /**
     * Pages by key reach every row once, in the database's order of the names (PostgreSQL's collation, SQLite's
     * bytes), whatever the names' case and characters, and across registries.
     */
    @ParameterizedTest
    @MethodSource("io.streamtables.state.TestDatabases#both")
    void pagesReachEveryRowOnce(String kind) throws IOException {
        SchemaRegistryStore store = open(TestDatabases.url(kind));
        List<String> names = List.of("a", "B", "b", "a-b", "ab", "a.b", "A_b", "$x", "#y", "9", "10", "z");
        String text = "{\"type\": \"object\"}";
        for (String name : names) {
            store.createRegistry(ACCOUNT, name, null, Instant.now(), NONE);
            store.createSchema(ACCOUNT, name, "s1", "JSON", "NONE", null, text, tree(text), Instant.now(), NONE);
            store.createSchema(ACCOUNT, name, "S2", "JSON", "NONE", null, text, tree(text), Instant.now(), NONE);
        }
        for (int i = 2; i <= 12; i++) {
            String next = "{\"type\": \"object\", \"title\": \"" + i + "\"}";
            store.registerVersion(ACCOUNT, "a", "s1", next, tree(next), Instant.now(), NONE);
        }

        List<String> registries = store.registries(ACCOUNT, null, 100).stream().map(Registry::name).toList();
        assertEquals(names.size(), registries.size());
        List<String> paged = new ArrayList<>();
        for (List<Registry> page = store.registries(ACCOUNT, null, 5); !page.isEmpty();
                page = store.registries(ACCOUNT, page.get(page.size() - 1).name(), 5)) {
            page.forEach(r -> paged.add(r.name()));
        }
        assertEquals(registries, paged);

        List<String> schemas = store.schemas(ACCOUNT, null, null, null, 100).stream()
                .map(s -> s.registry() + "/" + s.name()).toList();
        assertEquals(2 * names.size(), schemas.size());
        List<String> pagedSchemas = new ArrayList<>();
        for (List<Schema> page = store.schemas(ACCOUNT, null, null, null, 5); !page.isEmpty();
                page = store.schemas(ACCOUNT, null, page.get(page.size() - 1).registry(),
                        page.get(page.size() - 1).name(), 5)) {
            page.forEach(s -> pagedSchemas.add(s.registry() + "/" + s.name()));
        }
        assertEquals(schemas, pagedSchemas);
        assertEquals(List.of("B/S2", "B/s1"), store.schemas(ACCOUNT, "B", null, null, 100).stream()
                .map(s -> s.registry() + "/" + s.name()).sorted().toList(), "one registry's");

        List<Long> versions = new ArrayList<>();
        for (List<VersionItem> page = store.versions(ACCOUNT, "a", "s1", 0, 5); !page.isEmpty();
                page = store.versions(ACCOUNT, "a", "s1", page.get(page.size() - 1).number(), 5)) {
            page.forEach(v -> versions.add(v.number()));
        }
        assertEquals(LongStream.rangeClosed(1, 12).boxed().toList(), versions);
    }

    /** A database of an earlier release: its schemas' definitions count against the bytes quota once migrated. */
    @ParameterizedTest
    @MethodSource("io.streamtables.state.TestDatabases#both")
    void anEarlierReleasesDefinitionsCount(String kind) throws Exception {
        String url = TestDatabases.url(kind);
        String text = "{\"type\": \"object\", \"description\": \"caf\u00e9\"}"; // bytes count, not characters
        try (AgroalDataSource pool = AgroalDataSource.from(new AgroalDataSourceConfigurationSupplier()
                .connectionPoolConfiguration(p -> p.maxSize(4).acquisitionTimeout(Duration.ofSeconds(10))
                        .connectionFactoryConfiguration(f -> f.jdbcUrl(url))))) {
            Flyway.configure().dataSource(pool).locations("classpath:db/service").target("7")
                    .placeholders(Map.of("default_account", ACCOUNT)).load().migrate();
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                s.execute("INSERT INTO glue_registry VALUES ('" + ACCOUNT + "', 'r', NULL, 0, 0)");
                s.execute("INSERT INTO glue_schema VALUES ('" + ACCOUNT + "', 'r', 's', 'JSON', 'NONE', NULL, 2, 0, 0)");
                for (int n = 1; n <= 2; n++) {
                    s.execute("INSERT INTO glue_schema_version VALUES ('00000000-0000-0000-0000-00000000000" + n
                            + "', '" + ACCOUNT + "', 'r', 's', " + n + ", '" + text + "', 'h" + n + "', 0)");
                }
            }
        }
        SchemaRegistryStore store = open(url);
        String next = "{\"type\": \"object\", \"title\": \"x\"}";
        long stored = 2 * text.getBytes(StandardCharsets.UTF_8).length;
        Quotas room = new Quotas(100, 100, 100, stored + next.length());
        Quotas short1 = new Quotas(100, 100, 100, stored + next.length() - 1);
        OverQuotaException refused = assertThrows(OverQuotaException.class,
                () -> store.registerVersion(ACCOUNT, "r", "s", next, tree(next), Instant.now(), short1));
        assertTrue(refused.getMessage().contains("stores " + stored + " bytes"), refused.getMessage());
        assertTrue(refused.getMessage().contains("delivery.quotas.definition-bytes-per-account"), refused.getMessage());
        assertEquals(3, store.registerVersion(ACCOUNT, "r", "s", next, tree(next), Instant.now(), room)
                .orElseThrow().version().number());
    }

    private static SchemaRegistryStore open(String url) {
        return new SchemaRegistryStore(TestDatabase.open(url).database());
    }

    private static JsonNode tree(String json) throws IOException {
        return JSON.readTree(json);
    }
}
