package io.streamtables.state;

import io.agroal.api.AgroalDataSource;
import io.quarkus.agroal.DataSource.DataSourceLiteral;
import io.quarkus.arc.InjectableInstance;
import io.quarkus.flyway.FlywayDataSource.FlywayDataSourceLiteral;
import io.streamtables.config.DeliveryConfig;
import io.streamtables.config.Secrets;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Any;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.Function;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;

/**
 * The service database ({@code delivery.database-url}): a pooled Quarkus datasource, its tables migrated by
 * Flyway ({@code db/service}) before any store reads, and the one place that says why a statement failed. The
 * stores (channels, shard leases, schema registry) borrow connections here.
 */
@ApplicationScoped
public class ServiceDatabase {

    static final String SQLITE = "sqlite";
    static final String POSTGRESQL = "postgresql";

    /** The advisory lock's key: "stdb" in ASCII. */
    private static final long MIGRATION_LOCK = 0x73746462L;

    private final DataSource dataSource;
    private final String url;

    @Inject
    ServiceDatabase(DeliveryConfig config, @Any InjectableInstance<AgroalDataSource> dataSources,
            @Any InjectableInstance<Flyway> migrations) {
        this(config.databaseUrl(), kind -> dataSources.select(new DataSourceLiteral(kind)).get(),
                kind -> migrations.select(FlywayDataSourceLiteral.of(kind)).get());
    }

    /**
     * Opens the database of {@code url}, migrating its tables: the pool and the migrations are those of the URL's
     * datasource kind ({@code sqlite} or {@code postgresql}). Outside Quarkus (tests), the caller's own.
     */
    public ServiceDatabase(String url, Function<String, ? extends DataSource> dataSource,
            Function<String, Flyway> migrations) {
        this.url = url;
        String kind = kindOf(url);
        if (kind == null) {
            throw new IllegalStateException("delivery.database-url must be a jdbc:sqlite:FILE or a "
                    + "jdbc:postgresql://HOST/DATABASE URL, not " + this);
        }
        Sqlite.createFolder(url);
        this.dataSource = dataSource.apply(kind);
        try {
            migrate(kind, migrations.apply(kind));
        } catch (FlywayException e) {
            throw failed("create or migrate the tables", e);
        } catch (SQLException e) {
            throw failed("lock the tables for their migration", e);
        }
    }

    /**
     * Instances starting at once on a new PostgreSQL database migrate one after the other: Flyway locks the
     * migrations, but not its baseline of a database that holds other tables (the Iceberg catalog's, an earlier
     * release's), where the losers of the race fail ("Unable to baseline schema history table").
     */
    private void migrate(String kind, Flyway flyway) throws SQLException {
        if (!POSTGRESQL.equals(kind)) {
            flyway.migrate(); // SQLite: one process
            return;
        }
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("SELECT pg_advisory_lock(" + MIGRATION_LOCK + ")"); // freed when the session ends, too
            try {
                flyway.migrate();
            } finally {
                s.execute("SELECT pg_advisory_unlock(" + MIGRATION_LOCK + ")");
            }
        }
    }

    /** The datasource kind (Quarkus's name for it) of a JDBC URL; null for a database we do not support. */
    static String kindOf(String url) {
        if (url == null || url.startsWith("jdbc:sqlite:")) {
            return SQLITE;
        }
        return url.startsWith("jdbc:postgresql:") ? POSTGRESQL : null;
    }

    /** A pooled connection; closing it gives it back. */
    public Connection connect() throws SQLException {
        return dataSource.getConnection();
    }

    /**
     * Takes the account's row, in the transaction of {@code c}, until it commits: the first statement of every write
     * that a quota of the account bounds (channels, registries, schemas, versions), so that the count and the insert
     * it allows are one transaction and one account's writes happen one after the other in every process sharing
     * the database. The upsert changes nothing but is a write: it holds the row's lock on PostgreSQL (the next writer
     * of the account waits, then counts what this one wrote: READ COMMITTED takes a snapshot per statement) and the
     * database's write lock on SQLite, taken before anything is read (a transaction that read first could not take
     * it while another writes: SQLITE_BUSY at once). Other accounts write meanwhile on PostgreSQL.
     */
    public static void lockAccount(Connection c, String account) throws SQLException {
        try (PreparedStatement u = c.prepareStatement("INSERT INTO delivery_accounts (account_id) VALUES (?) "
                + "ON CONFLICT (account_id) DO UPDATE SET account_id = excluded.account_id")) {
            u.setString(1, account);
            u.executeUpdate();
        }
    }

    /** Throws when the database does not answer (the readiness check). */
    public void ping() throws SQLException {
        try (Connection c = connect()) {
            if (!c.isValid(2)) {
                throw new SQLException("no answer in 2 s");
            }
        }
    }

    /** Why an operation failed, fit for a log line or a health check. */
    public IllegalStateException failed(String what, Exception e) {
        return new IllegalStateException("Cannot " + what + " in the service database " + this
                + " (delivery.database-url): " + Secrets.redact(e.getMessage()), e);
    }

    @Override
    public String toString() {
        return Secrets.redact(url);
    }
}
