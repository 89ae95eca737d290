package io.streamtables.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.state.NewDatabaseRace;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** The catalog defaults operators rely on (README "Configuration"). */
class CatalogsTest {

    @Test
    void defaultsToSqliteAndALocalWarehouseWithoutHadoop() {
        Map<String, String> p = Catalogs.withDefaults(new TreeMap<>(Map.of("uri", "jdbc:sqlite:target/cp-test/c.db")), true);
        assertEquals("jdbc", p.get("type"));
        assertEquals("V1", p.get("jdbc.schema-version"));
        assertEquals("1", p.get("clients"), "SQLite takes one writer at a time");
        assertEquals(LocalFileIO.class.getName(), p.get("io-impl"));
        assertTrue(Path.of(p.get("warehouse")).isAbsolute(), p.get("warehouse"));
    }

    @Test
    void anS3WarehouseGetsS3FileIoWithSseS3UnlessSwitchedOff() {
        Map<String, String> on = Catalogs.withDefaults(new TreeMap<>(Map.of(
                "uri", "jdbc:postgresql://h/db", "warehouse", "s3://bucket/wh")), true);
        assertEquals("org.apache.iceberg.aws.s3.S3FileIO", on.get("io-impl"));
        assertEquals("urlconnection", on.get("http-client.type"));
        assertEquals("s3", on.get("s3.sse.type"));
        assertEquals(null, on.get("clients"), "only SQLite is limited to one connection");
        Map<String, String> off = Catalogs.withDefaults(new TreeMap<>(Map.of("warehouse", "s3://bucket/wh",
                "uri", "jdbc:postgresql://h/db")), false);
        assertEquals("none", off.get("s3.sse.type"));
        Map<String, String> kms = Catalogs.withDefaults(new TreeMap<>(Map.of("warehouse", "s3://bucket/wh",
                "uri", "jdbc:postgresql://h/db", "s3.sse.type", "kms")), true);
        assertEquals("kms", kms.get("s3.sse.type"), "what the operator sets is passed unchanged");
    }

    @Test
    void aChannelKeyTurnsSseS3IntoSseKmsWithThatKey() {
        Map<String, String> base = Catalogs.withDefaults(new TreeMap<>(Map.of("warehouse", "s3://bucket/wh",
                "uri", "jdbc:postgresql://h/db")), true);
        String key = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab";
        Map<String, String> keyed = Catalogs.withKey(base, key);
        assertEquals("kms", keyed.get("s3.sse.type"));
        assertEquals(key, keyed.get("s3.sse.key"));
        assertEquals(base.get("uri"), keyed.get("uri"), "the same catalog, only the encryption differs");
        assertEquals("s3", base.get("s3.sse.type"), "the shared catalog keeps SSE-S3");
    }

    /** Issue 17: a channel needs a catalog instance of its own for a key or a role; channels alike share one. */
    @Test
    void aChannelHasItsOwnCatalogOnlyForAKeyOrARole() {
        Map<String, String> base = Catalogs.withDefaults(new TreeMap<>(Map.of("warehouse", "s3://bucket/wh",
                "uri", "jdbc:postgresql://h/db")), true);
        String key = "arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab";
        Map<String, String> role = Map.of("client.factory", "org.apache.iceberg.aws.AssumeRoleAwsClientFactory",
                "client.assume-role.arn", "arn:aws:iam::123456789012:role/writer");
        assertEquals(base, Catalogs.channelProperties(base, true, null, Map.of()), "neither: the shared catalog");
        assertEquals(base, Catalogs.channelProperties(base, false, key, Map.of()), "no SSE headers: the key is moot");
        Map<String, String> asRole = Catalogs.channelProperties(base, true, null, role);
        assertEquals("arn:aws:iam::123456789012:role/writer", asRole.get("client.assume-role.arn"));
        assertEquals(base.get("uri"), asRole.get("uri"), "the same catalog, only the identity differs");
        assertEquals(asRole, Catalogs.channelProperties(base, true, null, new TreeMap<>(role)), "one per role");
        Map<String, String> both = Catalogs.channelProperties(base, true, key, role);
        assertEquals(key, both.get("s3.sse.key"));
        assertEquals(role.get("client.factory"), both.get("client.factory"));
        Map<String, String> local = Catalogs.withDefaults(
                new TreeMap<>(Map.of("uri", "jdbc:sqlite:target/cp-test/c.db")), true);
        assertEquals(local, Catalogs.channelProperties(local, true, key, role), "a local warehouse has no S3 to sign");
    }

    @Test
    void theDefaultCatalogCreatesAndReadsTablesInALocalWarehouse(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Catalog catalog = Catalogs.build(Catalogs.withDefaults(new TreeMap<>(Map.of(
                "uri", "jdbc:sqlite:" + dir.resolve("c.db"), "warehouse", dir.resolve("wh").toString())), true));
        TableIdentifier id = TableIdentifier.of("ns", "t");
        ((SupportsNamespaces) catalog).createNamespace(id.namespace());
        catalog.createTable(id, new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
        assertEquals(LocalFileIO.class, catalog.loadTable(id).io().getClass());
        assertTrue(java.nio.file.Files.exists(dir.resolve("wh/ns/t/metadata")), "metadata in the local warehouse");
        ((java.io.Closeable) catalog).close();
    }

    /**
     * Instances of a stage started at once on a new PostgreSQL catalog database (ZombieIT's two commit instances
     * did): each creates Iceberg's tables and adds its V1 column, and none may fail because another did it first.
     */
    @Test
    void instancesStartingAtOnceOnANewPostgresCatalogAllStart(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        NewDatabaseRace.run(5, 4, url -> (java.io.Closeable) Catalogs.build(Catalogs.withDefaults(
                new TreeMap<>(Map.of("uri", url, "warehouse", dir.resolve("wh").toString())), true)), catalogs -> {
                    ((SupportsNamespaces) catalogs.get(0)).createNamespace(Namespace.of("ns"));
                    assertTrue(((SupportsNamespaces) catalogs.get(3)).namespaceExists(Namespace.of("ns")),
                            "the instances share one catalog");
                });
    }
}
