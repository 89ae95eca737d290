package io.streamtables.state;

import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.flywaydb.core.Flyway;

/**
 * The service database outside Quarkus, as the stages have it: an Agroal pool on the URL, migrated by Flyway
 * with the stages' own settings ({@code quarkus.flyway.<kind>.*} of {@code META-INF/microprofile-config.properties},
 * read through MicroProfile Config as Quarkus reads them).
 */
public final class TestDatabase implements AutoCloseable {

    private AgroalDataSource pool;
    private final ServiceDatabase database;

    private TestDatabase(String url) {
        database = new ServiceDatabase(url, kind -> pool = pool(url), kind -> migrations(kind, pool));
    }

    private static Flyway migrations(String kind, AgroalDataSource pool) {
        Config config = ConfigProvider.getConfig();
        String prefix = "quarkus.flyway." + kind + ".";
        return Flyway.configure().dataSource(pool)
                .locations("classpath:" + config.getValue(prefix + "locations", String.class))
                .baselineOnMigrate(config.getValue(prefix + "baseline-on-migrate", Boolean.class))
                .baselineVersion(config.getValue(prefix + "baseline-version", String.class))
                .placeholders(Map.of("default_account",
                        config.getValue(prefix + "placeholders.default_account", String.class))).load();
    }

    private static AgroalDataSource pool(String url) {
        try {
            return AgroalDataSource.from(new AgroalDataSourceConfigurationSupplier().connectionPoolConfiguration(p -> p
                    .maxSize(4).acquisitionTimeout(Duration.ofSeconds(10))
                    .connectionFactoryConfiguration(f -> f.jdbcUrl(url))));
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Opens, creating or migrating the tables. */
    public static TestDatabase open(String url) {
        return new TestDatabase(url);
    }

    public ServiceDatabase database() {
        return database;
    }

    @Override
    public void close() {
        if (pool != null) {
            pool.close();
        }
    }
}
