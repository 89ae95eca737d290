package io.streamtables.maintenance;

import io.streamtables.state.ServiceDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.function.LongSupplier;

/**
 * Who maintains a table: a lease per table in the service database (keyed by {@code Catalogs.tableKey}, so that
 * channels naming one table in a shared catalog count as one), and in distributed mode one commit instance at a time
 * compacts and expires it. A lease's {@code epoch} grows each time it changes owner;
 * the holder claims the table with it ({@link FencedCommit}), so a holder paused past its lease finds a newer epoch
 * in the table and stops. Time is this process's clock, as for the shard leases (DESIGN "Shard leases").
 */
final class MaintenanceLeases {

    private final ServiceDatabase database;
    private final String owner;
    private final long durationMillis;
    private final LongSupplier clock;

    MaintenanceLeases(ServiceDatabase database, String owner, Duration duration, LongSupplier clock) {
        this.database = database;
        this.owner = owner;
        this.durationMillis = duration.toMillis();
        this.clock = clock;
    }

    String owner() {
        return owner;
    }

    /**
     * Takes or renews the table's lease for a run on the channel's behalf.
     *
     * @return the lease's epoch, or empty when another instance holds it
     */
    OptionalLong acquire(String table, String channelArn) {
        long now = clock.getAsLong();
        try (Connection c = database.connect()) {
            // one statement: two instances never both take a free or expired lease; a new holder gets a new epoch
            // (the same owner keeps its own: one process runs one maintenance of a table at a time, and a process
            // restarted at the same host:port takes its dead predecessor's lease back at once)
            try (PreparedStatement u = c.prepareStatement("INSERT INTO delivery_table_leases "
                    + "(table_key, channel_arn, owner, expires_at_ms, epoch) VALUES (?, ?, ?, ?, 1) "
                    + "ON CONFLICT (table_key) DO UPDATE "
                    + "SET epoch = CASE WHEN delivery_table_leases.owner = excluded.owner "
                    + "THEN delivery_table_leases.epoch ELSE delivery_table_leases.epoch + 1 END, "
                    + "owner = excluded.owner, expires_at_ms = excluded.expires_at_ms, "
                    + "channel_arn = excluded.channel_arn "
                    + "WHERE delivery_table_leases.owner = excluded.owner "
                    + "OR delivery_table_leases.expires_at_ms < ?")) {
                u.setString(1, table);
                u.setString(2, channelArn);
                u.setString(3, owner);
                u.setLong(4, now + durationMillis);
                u.setLong(5, now);
                u.executeUpdate();
            }
            try (PreparedStatement q = c.prepareStatement("SELECT epoch FROM delivery_table_leases "
                    + "WHERE table_key = ? AND owner = ?")) {
                q.setString(1, table);
                q.setString(2, owner);
                try (ResultSet rs = q.executeQuery()) {
                    return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
                }
            }
        } catch (SQLException e) {
            throw database.failed("take the maintenance lease of " + table, e);
        }
    }

    /**
     * Renews the lease if this instance still holds it at that epoch; a run asks before each of its steps.
     *
     * @return false when the lease expired and another instance took it: the run must stop
     */
    boolean renew(String table, long epoch) {
        try (Connection c = database.connect(); PreparedStatement u = c.prepareStatement(
                "UPDATE delivery_table_leases SET expires_at_ms = ? WHERE table_key = ? AND owner = ? "
                        + "AND epoch = ? AND expires_at_ms >= ?")) {
            long now = clock.getAsLong();
            u.setLong(1, now + durationMillis);
            u.setString(2, table);
            u.setString(3, owner);
            u.setLong(4, epoch);
            u.setLong(5, now);
            return u.executeUpdate() == 1;
        } catch (SQLException e) {
            throw database.failed("renew the maintenance lease of " + table, e);
        }
    }

    /**
     * Moves the held lease to a higher epoch: the table holds a newer epoch than the database ever gave (the service
     * database was recreated, or moved from SQLite to PostgreSQL), and the run would be fenced forever.
     *
     * @return false when the lease is no longer held at {@code epoch}
     */
    boolean raise(String table, long epoch, long higher) {
        try (Connection c = database.connect(); PreparedStatement u = c.prepareStatement(
                "UPDATE delivery_table_leases SET epoch = ? WHERE table_key = ? AND owner = ? AND epoch = ?")) {
            u.setLong(1, higher);
            u.setString(2, table);
            u.setString(3, owner);
            u.setLong(4, epoch);
            return u.executeUpdate() == 1;
        } catch (SQLException e) {
            throw database.failed("raise the maintenance lease of " + table, e);
        }
    }

    /** Frees the lease at the end of a run, so that any instance may take the next one at once. */
    void release(String table, long epoch) {
        try (Connection c = database.connect(); PreparedStatement u = c.prepareStatement(
                "UPDATE delivery_table_leases SET expires_at_ms = 0 WHERE table_key = ? AND owner = ? "
                        + "AND epoch = ?")) {
            u.setString(1, table);
            u.setString(2, owner);
            u.setLong(3, epoch);
            u.executeUpdate();
        } catch (SQLException e) {
            throw database.failed("release the maintenance lease of " + table, e);
        }
    }
}
