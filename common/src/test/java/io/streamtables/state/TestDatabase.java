package io.streamtables.state;

import io.agroal.api.AgroalDataSource;
import io.agroal.api.configuration.supplier.AgroalDataSourceConfigurationSupplier;
import java.sql.SQLException;
import java.time.Duration;
import org.flywaydb.core.Flyway;

/**
 * The service database outside Quarkus, as the stages have it: an Agroal pool on the URL, migrated by Flyway
 * with the settings of {@code META-INF/microprofile-config.properties} ({@code quarkus.flyway.*}).
 */
public final class TestDatabase implements AutoCloseable {

    private AgroalDataSource pool;
    private final ServiceDatabase database;

    private TestDatabase(String url) {
        database = new ServiceDatabase(url, () -> pool = pool(url), () -> Flyway.configure().dataSource(pool)
                .locations("classpath:db/service").baselineOnMigrate(true).baselineVersion("0").load());
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
