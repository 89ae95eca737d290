package io.streamtables.state;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * The two databases the service runs on, for tests parameterized over both: SQLite (a temporary file) and
 * PostgreSQL (a fresh schema per test in {@code POSTGRES_URL}, default the local server's {@code test} database;
 * skipped when it does not answer). A schema per test: rows such as live instances are global to a database, and
 * other tests' must not count. The test class drops them with {@link #dropSchemas()} in its {@code @AfterAll}.
 */
public final class TestDatabases {

    public static final String POSTGRES = System.getenv().getOrDefault("POSTGRES_URL",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
    private static final String POSTGRES_KIND = "postgres";
    private static final List<String> SCHEMAS = new ArrayList<>();

    private TestDatabases() {
    }

    /** The kinds, for a {@code @MethodSource}; {@link #url} makes each a database. */
    public static Stream<String> both() {
        try {
            return Stream.of("jdbc:sqlite:" + Files.createTempDirectory("service-db").resolve("delivery.db"),
                    POSTGRES_KIND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The SQLite URL as it is, or the URL of a new PostgreSQL schema (the test is skipped without PostgreSQL). */
    public static String url(String kind) {
        if (!kind.equals(POSTGRES_KIND)) {
            return kind;
        }
        String schema = "st_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection c = DriverManager.getConnection(POSTGRES); Statement s = c.createStatement()) {
            s.execute("CREATE SCHEMA " + schema);
        } catch (SQLException e) {
            Assumptions.abort("no PostgreSQL answers at " + POSTGRES + ": " + e.getMessage());
        }
        synchronized (SCHEMAS) {
            SCHEMAS.add(schema);
        }
        return POSTGRES + (POSTGRES.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    public static void dropSchemas() throws SQLException {
        synchronized (SCHEMAS) {
            if (SCHEMAS.isEmpty()) {
                return;
            }
            try (Connection c = DriverManager.getConnection(POSTGRES); Statement s = c.createStatement()) {
                for (String schema : SCHEMAS) {
                    s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
                }
            }
            SCHEMAS.clear();
        }
    }
}
