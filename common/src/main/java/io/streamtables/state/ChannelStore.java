package io.streamtables.state;

import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Channels in the service's database ({@code delivery.database-url}: SQLite by default, PostgreSQL when
 * configured): their CreateChannel definition, status and reason, and activation time. They survive restarts,
 * and every instance of every stage reads the same rows.
 */
@ApplicationScoped
public class ChannelStore {

    /**
     * One channel as stored; {@code activatedAt} is null until the channel first became ACTIVE, and
     * {@code schemaVersionId} (the version it decodes with) until then too; {@code revision} is that of its last
     * update (0: never updated).
     */
    public record Row(String arn, String name, String definition, String status, String statusReason, long createdAt,
            Long activatedAt, String schemaVersionId, long revision) {

        public Row(String arn, String name, String definition, String status, String statusReason, long createdAt,
                Long activatedAt) {
            this(arn, name, definition, status, statusReason, createdAt, activatedAt, null, 0);
        }
    }

    private final ServiceDatabase database;

    public ChannelStore(ServiceDatabase database) {
        this.database = database;
    }

    /** Throws when the database does not answer (the readiness check). */
    public void ping() throws SQLException {
        database.ping();
    }

    /** What {@link #insert} did. */
    public enum Inserted { CREATED, EXISTS, OVER_QUOTA }

    /**
     * Stores a new channel of {@code account} unless one of that ARN exists or the account has {@code quota}
     * channels already (in any state until gone), the count and the insert in one transaction under the account's
     * lock ({@link ServiceDatabase#lockAccount}), so that control planes creating at once cannot pass the quota.
     */
    public Inserted insert(Row row, String account, int quota) {
        return changing("store channel " + row.arn(), c -> {
            ServiceDatabase.lockAccount(c, account);
            try (PreparedStatement q = c.prepareStatement(
                    "SELECT COUNT(*) FROM delivery_channels WHERE channel_arn LIKE ?")) {
                q.setString(1, "arn:%:" + account + ":channel/%");
                try (ResultSet r = q.executeQuery()) {
                    r.next();
                    if (r.getLong(1) >= quota) {
                        return Inserted.OVER_QUOTA;
                    }
                }
            }
            if (find(c, row.arn()).isPresent()) {
                return Inserted.EXISTS;
            }
            try (PreparedStatement i = c.prepareStatement("INSERT INTO delivery_channels (channel_arn, channel_name, "
                    + "definition, status, status_reason, created_at, activated_at) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                i.setString(1, row.arn());
                i.setString(2, row.name());
                i.setString(3, row.definition());
                i.setString(4, row.status());
                i.setString(5, row.statusReason());
                i.setLong(6, row.createdAt());
                i.setObject(7, row.activatedAt());
                i.executeUpdate();
                return Inserted.CREATED;
            }
        });
    }

    /**
     * How many times the channels' rows changed: every write here counts one more in the write's transaction, so a
     * reader that finds the count it saw last has read the rows as they are.
     */
    public long changes() {
        try (Connection c = connect(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT value FROM delivery_channel_changes WHERE id = 1")) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw failed("read the channels' change count", e);
        }
    }

    public List<Row> all() {
        try (Connection c = connect(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT * FROM delivery_channels ORDER BY created_at, channel_name")) {
            List<Row> rows = new ArrayList<>();
            while (rs.next()) {
                rows.add(row(rs));
            }
            return rows;
        } catch (SQLException e) {
            throw failed("read the channels", e);
        }
    }

    public Optional<Row> get(String arn) {
        try (Connection c = connect()) {
            return find(c, arn);
        } catch (SQLException e) {
            throw failed("read channel " + arn, e);
        }
    }

    /**
     * Stores an updated definition with the next revision, taken in the same transaction: the counter's row stays
     * locked until the commit, so revisions become visible in their order (a reader that sees one has seen those
     * before it).
     *
     * @return the update's revision
     */
    public synchronized long updateDefinition(String arn, String definition) {
        return changing("update channel " + arn, c -> {
            try (PreparedStatement next = c.prepareStatement(
                    "UPDATE delivery_revision SET value = value + 1 WHERE id = 1");
                    PreparedStatement read = c.prepareStatement("SELECT value FROM delivery_revision WHERE id = 1");
                    PreparedStatement u = c.prepareStatement(
                            "UPDATE delivery_channels SET definition = ?, revision = ? WHERE channel_arn = ?")) {
                next.executeUpdate();
                long revision;
                try (ResultSet rs = read.executeQuery()) {
                    rs.next();
                    revision = rs.getLong(1);
                }
                u.setString(1, definition);
                u.setLong(2, revision);
                u.setString(3, arn);
                u.executeUpdate();
                return revision;
            }
        });
    }

    /**
     * Records that this process has just read the channels, the highest revision among them {@code revision}; readers
     * not heard of for a day (processes gone) are forgotten.
     */
    public void read(String instance, long revision, long now) {
        try (Connection c = connect(); PreparedStatement u = c.prepareStatement("INSERT INTO delivery_readers "
                + "(instance, revision, read_at_ms) VALUES (?, ?, ?) ON CONFLICT (instance) DO UPDATE "
                + "SET revision = excluded.revision, read_at_ms = excluded.read_at_ms");
                PreparedStatement forget = c.prepareStatement("DELETE FROM delivery_readers WHERE read_at_ms < ?")) {
            u.setString(1, instance);
            u.setLong(2, revision);
            u.setLong(3, now);
            u.executeUpdate();
            forget.setLong(1, now - 86_400_000L);
            forget.executeUpdate();
        } catch (SQLException e) {
            throw failed("record what this process read", e);
        }
    }

    /**
     * The lowest revision the processes that read the channels at {@code since} or later have read (what all of them
     * run with); empty when none did.
     */
    public OptionalLong readByAll(long since) {
        try (Connection c = connect(); PreparedStatement q = c.prepareStatement(
                "SELECT MIN(revision), COUNT(*) FROM delivery_readers WHERE read_at_ms >= ?")) {
            q.setLong(1, since);
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                return rs.getLong(2) == 0 ? OptionalLong.empty() : OptionalLong.of(rs.getLong(1));
            }
        } catch (SQLException e) {
            throw failed("read what the processes read", e);
        }
    }

    /**
     * Sets the status unless it is final (FAILED, SUSPENDED, DELETING), in the statement itself: another instance
     * may have deleted the channel since this one read it. The first ACTIVE also records the activation time, which
     * never changes afterwards.
     *
     * @return whether the status was set
     */
    public synchronized boolean setStatus(String arn, String status, String reason, long now) {
        return changing("update channel " + arn, c -> {
            try (PreparedStatement u = c.prepareStatement("UPDATE delivery_channels SET status = ?, status_reason = ?, "
                    + "activated_at = CASE WHEN activated_at IS NULL AND ? = 'ACTIVE' THEN ? ELSE activated_at END "
                    + "WHERE channel_arn = ? AND status NOT IN ('FAILED', 'SUSPENDED', 'DELETING')")) {
                u.setString(1, status);
                u.setString(2, reason);
                u.setString(3, status);
                u.setLong(4, now);
                u.setString(5, arn);
                return u.executeUpdate() == 1;
            }
        });
    }

    /** Records the schema version the channel decodes with, once: a later call changes nothing. */
    public synchronized void pinSchemaVersion(String arn, String versionId) {
        changing("update channel " + arn, c -> {
            try (PreparedStatement u = c.prepareStatement("UPDATE delivery_channels "
                    + "SET schema_version_id = ? WHERE channel_arn = ? AND schema_version_id IS NULL")) {
                u.setString(1, versionId);
                u.setString(2, arn);
                return u.executeUpdate();
            }
        });
    }

    /** DELETING, whatever the status was (SPEC C4: a FAILED or SUSPENDED channel is deleted too). */
    public synchronized void setDeleting(String arn) {
        changing("delete channel " + arn, c -> {
            try (PreparedStatement u = c.prepareStatement(
                    "UPDATE delivery_channels SET status = 'DELETING', status_reason = NULL WHERE channel_arn = ?")) {
                u.setString(1, arn);
                return u.executeUpdate();
            }
        });
    }

    /**
     * Also forgets the channel's shard and maintenance leases: a channel created again under the same name (the same
     * ARN) may read another stream, whose shards must not look finished.
     */
    public synchronized void delete(String arn) {
        changing("delete channel " + arn, c -> {
            for (String table : new String[] {"delivery_channels", "delivery_leases"}) {
                try (PreparedStatement d = c.prepareStatement("DELETE FROM " + table + " WHERE channel_arn = ?")) {
                    d.setString(1, arn);
                    d.executeUpdate();
                }
            }
            return null;
        });
    }

    /** Whether a stage still holds a lease of the channel: an ingest instance a shard, a commit one its table. */
    public boolean leased(String arn, long now) {
        try (Connection c = connect(); PreparedStatement q = c.prepareStatement("SELECT COUNT(*) FROM delivery_leases "
                + "WHERE channel_arn = ? AND owner <> '' AND expires_at_ms > ? AND finished = 0")) {
            q.setString(1, arn);
            q.setLong(2, now);
            try (ResultSet rs = q.executeQuery()) {
                return rs.next() && rs.getLong(1) > 0;
            }
        } catch (SQLException e) {
            throw failed("read the leases of channel " + arn, e);
        }
    }

    private static Optional<Row> find(Connection c, String arn) throws SQLException {
        try (PreparedStatement q = c.prepareStatement("SELECT * FROM delivery_channels WHERE channel_arn = ?")) {
            q.setString(1, arn);
            try (ResultSet rs = q.executeQuery()) {
                return rs.next() ? Optional.of(row(rs)) : Optional.empty();
            }
        }
    }

    private static Row row(ResultSet rs) throws SQLException {
        long activated = rs.getLong("activated_at");
        Long activatedAt = rs.wasNull() ? null : activated;
        return new Row(rs.getString("channel_arn"), rs.getString("channel_name"), rs.getString("definition"),
                rs.getString("status"), rs.getString("status_reason"), rs.getLong("created_at"), activatedAt,
                rs.getString("schema_version_id"), rs.getLong("revision"));
    }

    /** A write of the channels' rows, on the connection of its transaction. */
    @FunctionalInterface
    private interface Write<T> {
        T run(Connection c) throws SQLException;
    }

    /**
     * Runs {@code write} and counts the change in one transaction. The count is taken last: a writer holds its lock
     * only until the commit, never while it waits for another lock, so writers cannot wait on each other in a ring.
     */
    private <T> T changing(String what, Write<T> write) {
        try (Connection c = connect()) {
            c.setAutoCommit(false);
            try (PreparedStatement count = c.prepareStatement(
                    "UPDATE delivery_channel_changes SET value = value + 1 WHERE id = 1")) {
                T result = write.run(c);
                count.executeUpdate();
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw failed(what, e);
        }
    }

    private Connection connect() throws SQLException {
        return database.connect();
    }

    private IllegalStateException failed(String what, SQLException e) {
        return database.failed(what, e);
    }

}
