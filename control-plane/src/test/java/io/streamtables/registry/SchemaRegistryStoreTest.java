package io.streamtables.registry;

import static io.streamtables.registry.TestGlue.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.registry.SchemaRegistryStore.Registered;
import io.streamtables.registry.SchemaRegistryStore.Schema;
import io.streamtables.registry.SchemaRegistryStore.Version;
import io.streamtables.state.TestDatabase;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The store on both databases the service supports, without Quarkus: SQLite (a file under target/) and the
 * PostgreSQL of this machine, skipped when it does not answer.
 */
class SchemaRegistryStoreTest {

    static final String POSTGRES = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    static final String SQLITE = "jdbc:sqlite:target/store-test.db";
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

    @ParameterizedTest
    @ValueSource(strings = {SQLITE, POSTGRES})
    void registriesSchemasAndVersions(String url) throws IOException {
        SchemaRegistryStore store = open(url);
        String registry = unique("reg");
        String schema = unique("orders");
        Instant t0 = Instant.parse("2026-01-02T03:04:05.678Z");

        assertTrue(store.createRegistry(ACCOUNT, registry, "desc", t0));
        assertFalse(store.createRegistry(ACCOUNT, registry, "other", t0), "already exists");
        assertEquals("desc", store.registry(ACCOUNT, registry).orElseThrow().description());
        assertEquals(t0, store.registry(ACCOUNT, registry).orElseThrow().created());
        assertTrue(store.registries(ACCOUNT).stream().anyMatch(r -> r.name().equals(registry)));

        String v1Text = "{\"type\": \"object\", \"properties\": {\"id\": {\"type\": \"string\"}}}";
        Version v1 = store.createSchema(ACCOUNT, registry, schema, "JSON", "NONE", null, v1Text, tree(v1Text), t0).orElseThrow();
        assertEquals(1, v1.number());
        assertTrue(store.createSchema(ACCOUNT, registry, schema, "JSON", "NONE", null, v1Text, tree(v1Text), t0).isEmpty(),
                "already exists");

        Instant t1 = t0.plusSeconds(60);
        String v2Text = "{\"type\": \"object\", \"properties\": {\"id\": {\"type\": \"integer\"}}}";
        Registered v2 = store.registerVersion(ACCOUNT, registry, schema, v2Text, tree(v2Text), t1).orElseThrow();
        assertTrue(v2.created());
        assertEquals(2, v2.version().number());
        assertNotEquals(v1.id(), v2.version().id());

        // the same tree as v1 with other key order and blanks: v1, nothing added, updated time unchanged
        String v1Again = "{ \"properties\" : { \"id\" : { \"type\" : \"string\" } }, \"type\" : \"object\" }";
        Registered again = store.registerVersion(ACCOUNT, registry, schema, v1Again, tree(v1Again), t1.plusSeconds(60)).orElseThrow();
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
        assertEquals(List.of(schema), store.schemas(ACCOUNT, registry).stream().map(Schema::name).toList());
        assertTrue(store.registerVersion(ACCOUNT, registry, schema + "-x", v1Text, tree(v1Text), t1).isEmpty(), "no such schema");

        assertTrue(store.deleteSchema(ACCOUNT, registry, schema));
        assertFalse(store.deleteSchema(ACCOUNT, registry, schema));
        assertTrue(store.schema(ACCOUNT, registry, schema).isEmpty());
        assertTrue(store.version(v1.id()).isEmpty());
        assertTrue(store.version(v2.version().id()).isEmpty());
        assertTrue(store.schemas(ACCOUNT, registry).isEmpty());
    }

    @ParameterizedTest
    @ValueSource(strings = {SQLITE, POSTGRES})
    void reopeningKeepsTheData(String url) throws IOException {
        String registry = unique("reg");
        String text = "{\"type\": \"object\"}";
        Version v1 = open(url).createSchema(ACCOUNT, registry, "s", "JSON", "NONE", null, text, tree(text), Instant.now())
                .orElseThrow();
        SchemaRegistryStore reopened = open(url); // the migrations find their history: nothing to do
        assertEquals(v1, reopened.version(v1.id()).orElseThrow());
        assertEquals(1, reopened.schema(ACCOUNT, registry, "s").orElseThrow().latestVersion());
    }

    /** Accounts own their registries: the same names in two accounts are two schemas, each seen by its owner. */
    @ParameterizedTest
    @ValueSource(strings = {SQLITE, POSTGRES})
    void twoAccountsKeepApartUnderTheSameNames(String url) throws IOException {
        SchemaRegistryStore store = open(url);
        String registry = unique("reg");
        String other = "222222222222";
        String mine = "{\"type\": \"object\"}";
        String theirs = "{\"type\": \"object\", \"required\": [\"a\"]}";
        assertTrue(store.createRegistry(ACCOUNT, registry, null, Instant.now()));
        assertTrue(store.createRegistry(other, registry, null, Instant.now()), "the other account's own registry");
        store.createSchema(ACCOUNT, registry, "s", "JSON", "NONE", null, mine, tree(mine), Instant.now()).orElseThrow();
        Version v = store.createSchema(other, registry, "s", "JSON", "NONE", null, theirs, tree(theirs), Instant.now())
                .orElseThrow();
        assertEquals(other, store.version(v.id()).orElseThrow().account());
        assertEquals(mine, store.version(ACCOUNT, registry, "s", 1).orElseThrow().definition());
        assertEquals(theirs, store.version(other, registry, "s", 1).orElseThrow().definition());
        assertTrue(store.versionByDefinition(ACCOUNT, registry, "s", tree(theirs)).isEmpty());
        assertTrue(store.deleteSchema(other, registry, "s"));
        assertTrue(store.schema(ACCOUNT, registry, "s").isPresent(), "deleting theirs leaves mine");
        assertEquals(List.of(registry), store.registries(other).stream().map(SchemaRegistryStore.Registry::name)
                .filter(registry::equals).toList());
    }

    private static SchemaRegistryStore open(String url) {
        if (url.startsWith("jdbc:postgresql:")) {
            try (Connection c = DriverManager.getConnection(url + "&connectTimeout=3")) {
                Assumptions.assumeTrue(c.isValid(3));
            } catch (SQLException e) {
                Assumptions.abort("PostgreSQL does not answer at " + url + ": " + e.getMessage());
            }
        }
        return new SchemaRegistryStore(TestDatabase.open(url).database());
    }

    private static JsonNode tree(String json) throws IOException {
        return JSON.readTree(json);
    }
}
