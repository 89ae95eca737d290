package io.streamtables.state;

import io.streamtables.config.DeliveryConfig;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;

/**
 * Channel state that must survive restarts before the table exists: the activation time, from which a new
 * channel reads ({@code AT_TIMESTAMP}) until its first commit records watermarks in the table.
 */
@ApplicationScoped
public class ChannelStateStore {

    private final String url;

    public ChannelStateStore(DeliveryConfig config) {
        this.url = config.databaseUrl();
        createSqliteFolder(url);
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS delivery_channel ("
                    + "channel_arn VARCHAR(2048) PRIMARY KEY, activated_at BIGINT NOT NULL)");
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot open the service database " + url
                    + " (delivery.database-url): " + e.getMessage(), e);
        }
    }

    /** The activation time of the channel: recorded now on its first start, read back on later ones. */
    public synchronized Instant activate(String channelArn, Instant now) {
        try (Connection c = connect()) {
            try (PreparedStatement q = c.prepareStatement(
                    "SELECT activated_at FROM delivery_channel WHERE channel_arn = ?")) {
                q.setString(1, channelArn);
                try (ResultSet rs = q.executeQuery()) {
                    if (rs.next()) {
                        return Instant.ofEpochMilli(rs.getLong(1));
                    }
                }
            }
            try (PreparedStatement i = c.prepareStatement(
                    "INSERT INTO delivery_channel (channel_arn, activated_at) VALUES (?, ?)")) {
                i.setString(1, channelArn);
                i.setLong(2, now.toEpochMilli());
                i.executeUpdate();
            }
            return now;
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot record the activation of " + channelArn + ": " + e.getMessage(), e);
        }
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(url);
    }

    private static void createSqliteFolder(String url) {
        if (!url.startsWith("jdbc:sqlite:") || url.contains(":memory:")) {
            return;
        }
        Path parent = Path.of(url.substring("jdbc:sqlite:".length())).toAbsolutePath().getParent();
        try {
            Files.createDirectories(parent);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create the folder of " + url, e);
        }
    }
}
