package io.streamtables.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelDefinition;
import io.streamtables.channel.ChannelGone;
import io.streamtables.config.DeliveryConfig;
import io.streamtables.config.TestDeliveryConfig;
import io.streamtables.roles.TestRoles;
import io.streamtables.state.NewDatabaseRace;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The catalog defaults operators rely on (docs/OPERATING.md "Configuration"). */
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

    /** A channel needs a catalog instance of its own for a key or a role; channels alike share one. */
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

    /**
     * A PostgreSQL catalog whose server accepts the connection and then says nothing (a half-open
     * connection, a hung database) fails the call within the login timeout instead of blocking it for ever.
     */
    @Test
    void aPostgresCatalogThatStopsAnsweringFailsInBoundedTime() throws Exception {
        Map<String, String> p = Catalogs.withDefaults(new TreeMap<>(Map.of("uri", "jdbc:postgresql://h/db")), true);
        assertEquals("10", p.get("jdbc.loginTimeout"));
        assertEquals("60", p.get("jdbc.socketTimeout"));
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 5, java.net.InetAddress.getLoopbackAddress())) {
            // no SSL: pgjdbc's own SSL-response timeout would end the wait before the login timeout is needed
            String uri = "jdbc:postgresql://127.0.0.1:" + silent.getLocalPort() + "/db?user=postgres&sslmode=disable";
            Map<String, String> props = Catalogs.withDefaults(new TreeMap<>(Map.of("uri", uri, "warehouse",
                    "target/cp-test/silent")), true);
            // the guard only ends a hang (pgjdbc has no login timeout of its own): the refusal comes after ~10 s
            assertThrows(RuntimeException.class, () -> assertTimeoutPreemptively(java.time.Duration.ofSeconds(30),
                    () -> Catalogs.build(props)));
        }
    }

    /**
     * Every KMS key (and role) gives a channel a catalog of its own; with a connection pool each, 60 keys would hold
     * 60 connections or more, and about 50 exhaust a small PostgreSQL. So the catalogs of one database share one pool.
     */
    @Test
    void catalogsOfManyKeysShareOneConnectionPool() throws Exception {
        String admin = NewDatabaseRace.POSTGRES;
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(admin)) {
            org.junit.jupiter.api.Assumptions.assumeTrue(c.isValid(3));
        } catch (java.sql.SQLException e) {
            org.junit.jupiter.api.Assumptions.abort("no PostgreSQL answers at " + admin);
        }
        String database = "keys_" + Long.toString(System.nanoTime(), 36);
        sql(admin, "CREATE DATABASE " + database);
        Catalogs catalogs = new Catalogs(Map.of("uri", admin.replace("/test?", "/" + database + "?"),
                "warehouse", "s3://bucket/wh"), Map.of(), true, TestRoles.off());
        try {
            for (int i = 0; i < 60; i++) {
                Catalog catalog = catalogs.forChannel(keyed("k" + i, String.format(
                        "arn:aws:kms:us-east-1:123456789012:key/00000000-0000-0000-0000-%012d", i)));
                ((SupportsNamespaces) catalog).namespaceExists(Namespace.of("ns"));
            }
            long connections = count(admin, "SELECT count(*) FROM pg_stat_activity WHERE datname = '" + database + "'");
            assertTrue(connections >= 1 && connections <= 2, connections + " connections for 60 keys");
        } finally {
            catalogs.close();
            sql(admin, "DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        }
    }

    /**
     * A deleted channel's catalog of its own (for its key) is closed and dropped, unless another channel uses it; the
     * operator's catalog stays.
     */
    @Test
    void aDeletedChannelsCatalogIsDroppedUnlessAnotherChannelUsesIt(@TempDir Path dir) {
        Catalogs catalogs = new Catalogs(Map.of("uri", "jdbc:sqlite:" + dir.resolve("c.db"),
                "warehouse", "s3://bucket/wh"), Map.of(), true, TestRoles.off());
        String key = "arn:aws:kms:us-east-1:123456789012:key/00000000-0000-0000-0000-000000000001";
        String otherKey = "arn:aws:kms:us-east-1:123456789012:key/00000000-0000-0000-0000-000000000002";
        Channel first = keyed("first", key);
        Channel second = keyed("second", key);
        Channel other = keyed("other", otherKey);
        Catalog shared = catalogs.forChannel(first);
        assertSame(shared, catalogs.forChannel(second), "one key, one catalog");
        Catalog own = catalogs.forChannel(other);
        Catalog operators = catalogs.forReading(other);
        assertNotSame(own, operators);

        catalogs.forget(new ChannelGone(first.arn()));
        assertSame(shared, catalogs.forChannel(second), "the second channel uses it still");
        catalogs.forget(new ChannelGone(other.arn()));
        assertNotSame(own, catalogs.forChannel(keyed("other", otherKey)), "closed and dropped: built again when needed");
        assertSame(operators, catalogs.forReading(second), "the operator's catalog stays");
        catalogs.close();
    }

    private static void sql(String url, String statement) throws java.sql.SQLException {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(url); var s = c.createStatement()) {
            s.execute(statement);
        }
    }

    private static long count(String url, String query) throws java.sql.SQLException {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(url); var s = c.createStatement();
                var rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static Channel keyed(String name, String kmsKeyArn) {
        Channel plain = channel(name, "b");
        ChannelDefinition d = plain.definition();
        return Channel.of(new ChannelDefinition(d.channelName(), d.serviceExecutionRoleArn(),
                d.streamConfigurationList(), d.destination(), d.loggingConfiguration(),
                new ChannelDefinition.EncryptionConfiguration("KMS", kmsKeyArn), d.tags()), CONFIG, "123456789012");
    }

    /**
     * Iceberg's REST client waits for an answer for ever unless told; a REST catalog gets connect and
     * socket timeouts (10 s, 60 s), and a server that accepts the connection and says nothing fails the call when
     * the socket timeout (2 s here) has passed.
     */
    @Test
    void aRestCatalogThatStopsAnsweringFailsInBoundedTime() throws Exception {
        Map<String, String> p = Catalogs.withDefaults(new TreeMap<>(Map.of("type", "rest", "uri", "http://h")), true);
        assertEquals("10000", p.get("rest.client.connection-timeout-ms"));
        assertEquals("60000", p.get("rest.client.socket-timeout-ms"));
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 5, java.net.InetAddress.getLoopbackAddress())) {
            Map<String, String> props = Catalogs.withDefaults(new TreeMap<>(Map.of("type", "rest", "uri",
                    "http://127.0.0.1:" + silent.getLocalPort(), "rest.client.socket-timeout-ms", "2000")), true);
            long began = System.nanoTime();
            assertThrows(RuntimeException.class, () -> assertTimeoutPreemptively(java.time.Duration.ofSeconds(30),
                    () -> Catalogs.build(props)));
            assertTrue(System.nanoTime() - began < 25_000_000_000L, "the call waited for the guard, not its timeout");
        }
    }

    /** The table bucket a channel names decides its catalog. */
    @Test
    void aBucketsCatalogIsItsEntryElseTheOperatorWideOneElseItsS3TablesEndpoint(@TempDir Path dir) {
        Map<String, Map<String, String>> entries = Map.of(
                "alpha", Map.of("uri", "jdbc:sqlite:" + dir.resolve("alpha.db"), "warehouse", dir.resolve("a").toString()),
                "beta", Map.of("type", "s3tables", "uri", "http://127.0.0.1:1/iceberg", "rest.access-key-id", "k"));
        Catalogs catalogs = new Catalogs(Map.of(), entries, true, TestRoles.off());
        Map<String, String> alpha = catalogs.bucketProperties(channel("a", "alpha"));
        assertEquals("jdbc", alpha.get("type"));
        assertEquals("jdbc:sqlite:" + dir.resolve("alpha.db"), alpha.get("uri"));

        Map<String, String> beta = catalogs.bucketProperties(channel("b", "beta"));
        assertEquals("rest", beta.get("type"), "s3tables is Iceberg's REST catalog");
        assertEquals("http://127.0.0.1:1/iceberg", beta.get("uri"), "what the entry sets is kept");
        assertEquals(BUCKET + "beta", beta.get("warehouse"), "the warehouse is the bucket's ARN");
        assertEquals("sigv4", beta.get("rest.auth.type"));
        assertEquals("s3tables", beta.get("rest.signing-name"));
        assertEquals("k", beta.get("rest.access-key-id"));
        assertEquals("s3", beta.get("s3.sse.type"), "SPEC E1 on a REST catalog's files too");
        assertEquals("s3", Catalogs.withDefaults(new TreeMap<>(Map.of("type", "rest", "uri", "http://h",
                "io-impl", "org.apache.iceberg.aws.s3.S3FileIO")), true).get("s3.sse.type"), "io-impl set: still SSE");

        Map<String, String> gamma = catalogs.bucketProperties(channel("c", "gamma"));
        assertEquals(Map.ofEntries(Map.entry("type", "rest"),
                Map.entry("uri", "https://s3tables.us-east-1.amazonaws.com/iceberg"),
                Map.entry("warehouse", BUCKET + "gamma"), Map.entry("rest.auth.type", "sigv4"),
                Map.entry("rest.signing-name", "s3tables"), Map.entry("rest.signing-region", "us-east-1"),
                Map.entry("io-impl", "org.apache.iceberg.aws.s3.S3FileIO"), Map.entry("http-client.type", "urlconnection"),
                Map.entry("s3.sse.type", "s3"), Map.entry("rest.client.connection-timeout-ms", "10000"),
                Map.entry("rest.client.socket-timeout-ms", "60000")), gamma, "a bucket without an entry");
        assertEquals(Optional.of(new S3TablesControl(URI.create("https://s3tables.us-east-1.amazonaws.com"),
                "us-east-1", null)), catalogs.s3TablesControl(channel("c", "gamma")), "S3 Tables' control API");
        assertEquals(Optional.empty(), catalogs.s3TablesControl(channel("a", "alpha")), "not an S3 Tables bucket");
        assertEquals(URI.create("http://127.0.0.1:1"), new Catalogs(Map.of(), Map.of("beta", Map.of("type", "s3tables",
                "s3tables.endpoint", "http://127.0.0.1:1")), true, TestRoles.off()).s3TablesControl(channel("b", "beta"))
                .orElseThrow().endpoint(), "an entry's own control endpoint");
        assertEquals("the S3 Tables endpoint https://s3tables.us-east-1.amazonaws.com/iceberg",
                catalogs.describe(channel("c", "gamma")));
        assertEquals("delivery.table-buckets.alpha.*", catalogs.describe(channel("a", "alpha")));
        assertTrue(catalogs.maintainsItsTables(channel("c", "gamma")), "AWS S3 Tables maintains its own tables");
        assertFalse(catalogs.maintainsItsTables(channel("b", "beta")), "a local endpoint named s3tables: ours");
        assertFalse(catalogs.maintainsItsTables(channel("a", "alpha")));
        assertEquals(java.util.Set.of("delivery.table-buckets.alpha"), catalogs.configured().keySet(),
                "readiness checks what it can reach without a channel");

        Catalogs operatorWide = new Catalogs(Map.of("uri", "jdbc:sqlite:" + dir.resolve("wide.db"),
                "warehouse", dir.resolve("w").toString()), entries, true, TestRoles.off());
        assertEquals("jdbc:sqlite:" + dir.resolve("wide.db"), operatorWide.bucketProperties(channel("c", "gamma"))
                .get("uri"), "delivery.catalog.* takes the buckets without an entry");
        assertEquals(alpha, operatorWide.bucketProperties(channel("a", "alpha")), "an entry still wins");
        assertEquals("delivery.catalog.*", operatorWide.describe(channel("c", "gamma")));
        assertEquals(operatorWide.tableKey(channel("c", "gamma")), operatorWide.tableKey(channel("x", "epsilon")),
                "buckets sharing delivery.catalog.* share their tables: one maintenance lease for ns.t");
        assertNotEquals(catalogs.tableKey(channel("c", "gamma")), catalogs.tableKey(channel("x", "epsilon")),
                "S3 Tables buckets: a warehouse each");
        assertNotEquals(operatorWide.tableKey(channel("a", "alpha")), operatorWide.tableKey(channel("c", "gamma")));
        Catalogs withPassword = new Catalogs(Map.of("type", "s3tables", "rest.secret-access-key", "hunter2"), Map.of(),
                true, TestRoles.off());
        assertFalse(withPassword.tableKey(channel("c", "gamma")).contains("hunter2"), "a digest of the properties");
        assertTrue(withPassword.tableKey(channel("c", "gamma")).endsWith("/ns.t"));
        operatorWide.close();
        Catalogs signed = new Catalogs(Map.of("type", "s3tables", "rest.access-key-id", "k"), Map.of(), true,
                TestRoles.off());
        assertEquals("k", signed.bucketProperties(channel("c", "gamma")).get("rest.access-key-id"),
                "delivery.catalog.type=s3tables: what it sets applies to every bucket without an entry");
        assertEquals(BUCKET + "gamma", signed.bucketProperties(channel("c", "gamma")).get("warehouse"));
        catalogs.close();
    }

    /** Two channels writing ns.t into two buckets write two tables. */
    @Test
    void twoBucketsHoldTwoTablesOfTheSameName(@TempDir Path dir) {
        Catalogs catalogs = new Catalogs(Map.of(), Map.of(
                "alpha", Map.of("uri", "jdbc:sqlite:" + dir.resolve("alpha.db"), "warehouse", dir.resolve("a").toString()),
                "delta", Map.of("uri", "jdbc:sqlite:" + dir.resolve("delta.db"), "warehouse", dir.resolve("d").toString())),
                true, TestRoles.off());
        Channel inAlpha = channel("a", "alpha");
        Channel inDelta = channel("d", "delta");
        TableIdentifier id = TableIdentifier.of("ns", "t");
        for (Channel channel : new Channel[] {inAlpha, inDelta}) {
            ((SupportsNamespaces) catalogs.forChannel(channel)).createNamespace(id.namespace());
            catalogs.forChannel(channel).buildTable(id, new Schema(Types.NestedField.required(1, "id",
                    Types.LongType.get()))).withProperty("bucket", channel.tableBucketName()).create();
        }
        assertEquals("alpha", catalogs.forReading(inAlpha).loadTable(id).properties().get("bucket"));
        assertEquals("delta", catalogs.forReading(inDelta).loadTable(id).properties().get("bucket"));
        assertTrue(java.nio.file.Files.exists(dir.resolve("a/ns/t/metadata")));
        assertTrue(java.nio.file.Files.exists(dir.resolve("d/ns/t/metadata")));
        catalogs.close();
    }

    private static final DeliveryConfig CONFIG = TestDeliveryConfig.forAccount("123456789012");

    private static final String BUCKET = "arn:aws:s3tables:us-east-1:123456789012:bucket/";

    private static Channel channel(String name, String bucket) {
        return Channel.of(new ChannelDefinition(name, null,
                List.of(new ChannelDefinition.StreamConfiguration("arn:aws:kinesis:us-east-1:123456789012:stream/s",
                        new ChannelDefinition.RecordConfiguration("JSON",
                                "arn:aws:glue:us-east-1:123456789012:schema/r/s"))),
                new ChannelDefinition.S3TablesDestinationConfiguration(300,
                        new ChannelDefinition.DeadLetterQueueConfiguration("arn:aws:s3:::dlq", "123456789012", null),
                        List.of(new ChannelDefinition.TableConfiguration(BUCKET + bucket, "ns", "t", "ZSTD",
                                new ChannelDefinition.PartitionSpec(List.of(
                                        new ChannelDefinition.PartitionField("TIME_HOUR", "ts")))))),
                null, null, null), CONFIG, "123456789012");
    }
}
