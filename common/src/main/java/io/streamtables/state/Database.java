package io.streamtables.state;

import io.streamtables.config.DeliveryConfig;
import io.streamtables.config.Secrets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Properties;

/**
 * The service database: its JDBC URL ({@code delivery.database-url}) and, apart from it, the credentials
 * ({@code delivery.database-user}, {@code delivery.database-password}), so that no password needs to ride in a URL.
 * Shown, the URL has any password it still holds masked ({@link Secrets}).
 */
public record Database(String url, String user, String password) {

    public static Database of(DeliveryConfig config) {
        return new Database(config.databaseUrl(), config.databaseUser().orElse(null),
                config.databasePassword().orElse(null));
    }

    public static Database of(String url) {
        return new Database(url, null, null);
    }

    public Connection connect() throws SQLException {
        Properties properties = new Properties();
        if (user != null) {
            properties.setProperty("user", user);
        }
        if (password != null) {
            properties.setProperty("password", password);
        }
        return DriverManager.getConnection(url, properties);
    }

    /** Why an operation failed, fit for a log line or a health check. */
    public IllegalStateException failed(String what, SQLException e) {
        return new IllegalStateException("Cannot " + what + " in the service database " + this + " (delivery.database-url): "
                + Secrets.redact(e.getMessage()), e);
    }

    @Override
    public String toString() {
        return Secrets.redact(url);
    }
}
