package io.streamtables.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServiceDatabaseTest {

    @TempDir
    Path dir;

    /** The stages' configuration as Quarkus reads it: the library defaults, the selection, the given settings. */
    private static SmallRyeConfig config(Map<String, String> settings) {
        return new SmallRyeConfigBuilder().addDefaultSources().addDiscoveredSources().addDefaultInterceptors()
                .withSources(new io.smallrye.config.PropertiesConfigSource(settings, "test", 400)).build();
    }

    @Test
    void theUrlActivatesTheDatasourceOfItsKindAndTheCredentialsGoApart() {
        SmallRyeConfig postgres = config(Map.of("delivery.database-url", "jdbc:postgresql://db:5432/delivery",
                "delivery.database-user", "svc", "delivery.database-password", "hunter2"));
        assertEquals("true", postgres.getConfigValue("quarkus.datasource.postgresql.active").getValue());
        assertEquals("false", postgres.getConfigValue("quarkus.datasource.sqlite.active").getValue());
        assertEquals("jdbc:postgresql://db:5432/delivery",
                postgres.getConfigValue("quarkus.datasource.postgresql.jdbc.url").getValue());
        assertEquals("svc", postgres.getConfigValue("quarkus.datasource.postgresql.username").getValue());
        assertEquals("hunter2", postgres.getConfigValue("quarkus.datasource.postgresql.password").getValue());

        SmallRyeConfig byDefault = config(Map.of());
        assertEquals("jdbc:sqlite:data/delivery.db",
                byDefault.getConfigValue("quarkus.datasource.sqlite.jdbc.url").getValue());
        assertEquals("true", byDefault.getConfigValue("quarkus.datasource.sqlite.active").getValue());
        assertEquals("false", byDefault.getConfigValue("quarkus.datasource.postgresql.active").getValue());
    }

    @Test
    void anUnsupportedDatabaseIsRefusedWithWhatToSetAndNoPassword() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> TestDatabase.open("jdbc:mysql://db/delivery?password=hunter2"));
        assertEquals("delivery.database-url must be a jdbc:sqlite:FILE or a jdbc:postgresql://HOST/DATABASE URL, "
                + "not jdbc:mysql://db/delivery?password=***", e.getMessage());
    }

    @Test
    void aFailureNamesTheOperationTheSettingAndNoPassword() throws Exception {
        String url = "jdbc:sqlite:" + dir.resolve("new/folder/delivery.db") + "?password=hunter2";
        try (TestDatabase db = TestDatabase.open(url)) {
            assertTrue(Files.isDirectory(dir.resolve("new/folder")), "SQLite's folder is created");
            String shown = db.database().failed("read the channels", new SQLException("gone: " + url)).getMessage();
            assertFalse(shown.contains("hunter2"), shown);
            assertTrue(shown.startsWith("Cannot read the channels in the service database jdbc:sqlite:"), shown);
            assertTrue(shown.contains("?password=*** (delivery.database-url): gone: "), shown);
        }
    }

    /**
     * A released migration never changes: databases that ran it keep its checksum and Flyway refuses to start on
     * them if the file differs. A change is a new V*.sql; a new file is added here with its hash.
     */
    @Test
    void releasedMigrationsAreNeverEdited() throws Exception {
        Map<String, String> released = Map.of(
                "V1__service_tables.sql", "996b666aced62be08da70bf4a419e5dabb26a2f4321785d7bc0f1e13085007d7",
                "V2__accounts_own_resources.sql", "dd2a10e415b610f4df6cf4cf4fa6098348df0dbe41c72dc637e363f9bde0a93f",
                "V3__maintenance_leases.sql", "321f48bc00e11298885acb44aace918c64bc817a5fd5361acc57ac87f260d360");
        for (Map.Entry<String, String> migration : released.entrySet()) {
            try (var in = getClass().getResourceAsStream("/db/service/" + migration.getKey())) {
                assertTrue(in != null, migration.getKey() + " is gone");
                String hash = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                        .digest(in.readAllBytes()));
                assertEquals(migration.getValue(), hash, migration.getKey() + " was edited after databases ran it: "
                        + "restore it and put the change in a new migration");
            }
        }
    }

    /** A database at V1 with a channel and a schema version: V2 keeps them all, in the operator's account. */
    @Test
    void version2GivesEveryRegistryRowTheOperatorsAccount() throws Exception {
        String url = "jdbc:sqlite:" + dir.resolve("v1.db");
        org.flywaydb.core.Flyway.configure().dataSource(url, null, null).locations("classpath:db/service")
                .placeholders(Map.of("default_account", "000000000000")).target("1").load().migrate();
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("INSERT INTO delivery_channels VALUES ('arn:aws:kinesis:us-east-1:000000000000:channel/c', 'c', "
                    + "'{}', 'ACTIVE', NULL, 1, 2)");
            s.execute("INSERT INTO glue_registry VALUES ('r', NULL, 1, 1)");
            s.execute("INSERT INTO glue_schema VALUES ('r', 's', 'JSON', 'NONE', NULL, 1, 1, 1)");
            s.execute("INSERT INTO glue_schema_version VALUES ('00000000-0000-0000-0000-000000000001', 'r', 's', 1, "
                    + "'{}', '" + "0".repeat(64) + "', 1)");
        }
        try (TestDatabase db = TestDatabase.open(url); Connection c = db.database().connect();
                Statement s = c.createStatement()) {
            assertEquals(1, new ChannelStore(db.database()).all().size());
            for (String table : List.of("glue_registry", "glue_schema", "glue_schema_version")) {
                try (ResultSet rs = s.executeQuery("SELECT account_id, registry_name FROM " + table)) {
                    assertTrue(rs.next(), table);
                    assertEquals("000000000000", rs.getString(1), table);
                    assertEquals("r", rs.getString(2), table);
                    assertFalse(rs.next(), table);
                }
            }
            // the channel name is no longer unique on its own: the same name in another account
            s.execute("INSERT INTO delivery_channels (channel_arn, channel_name, definition, status, status_reason, "
                    + "created_at, activated_at) VALUES ('arn:aws:kinesis:us-east-1:111111111111:channel/c', 'c', "
                    + "'{}', 'ACTIVE', NULL, 1, 2)");
        }
    }

    /** A database of a release before migrations: its tables, no history. Its rows survive the first start. */
    @Test
    void aDatabaseOfAnEarlierReleaseKeepsItsRows() throws Exception {
        String url = "jdbc:sqlite:" + dir.resolve("old.db");
        try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE delivery_channels (channel_arn VARCHAR(2048) PRIMARY KEY, channel_name "
                    + "VARCHAR(128) NOT NULL UNIQUE, definition TEXT NOT NULL, status VARCHAR(32) NOT NULL, "
                    + "status_reason TEXT, created_at BIGINT NOT NULL, activated_at BIGINT)");
            s.execute("INSERT INTO delivery_channels VALUES ('arn:c', 'c', '{}', 'ACTIVE', NULL, 1, 2)");
            s.execute("CREATE TABLE glue_registry (registry_name VARCHAR(255) PRIMARY KEY, description VARCHAR(2048), "
                    + "created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL)");
            s.execute("INSERT INTO glue_registry VALUES ('r', NULL, 1, 1)");
        }
        try (TestDatabase db = TestDatabase.open(url)) {
            ChannelStore channels = new ChannelStore(db.database());
            assertEquals(1, channels.all().size());
            assertEquals(2L, channels.get("arn:c").orElseThrow().activatedAt());
            try (Connection c = db.database().connect(); Statement s = c.createStatement()) {
                for (String table : Set.of("delivery_leases", "delivery_ingest_instances", "glue_schema")) {
                    s.executeQuery("SELECT COUNT(*) FROM " + table).close(); // the tables the old release lacked
                }
                try (ResultSet rs = s.executeQuery("SELECT account_id FROM glue_registry WHERE registry_name = 'r'")) {
                    assertTrue(rs.next());
                    assertEquals("000000000000", rs.getString(1), "a registry of before accounts is the operator's");
                }
            }
        }
        try (TestDatabase again = TestDatabase.open(url)) {
            assertEquals(1, new ChannelStore(again.database()).all().size(), "a second start migrates nothing");
        }
    }
}
