package io.streamtables.state;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * The one lease store: one table of the service database ({@code delivery_leases}) holds who reads a shard of a
 * channel (ingest) and who maintains a table (commit), and one set of statements takes, renews and gives them up.
 * A lease is taken when it is free, expired or already its taker's, in one statement, so two instances never both
 * take it; each change of holder raises its epoch (a holder paused past its lease finds a newer one where it checks
 * it, as maintenance does in its table); a finished lease (a shard closed and delivered) is taken by no one again.
 *
 * <p>Time is this process's clock ({@code clock}, {@link System#currentTimeMillis()} in service): an expiry is
 * written as the writer's now + duration and read against the reader's now. The database clock would remove skew
 * between hosts, but SQLite has none of its own and tests want a clock they control; hosts are expected to run NTP
 * (DESIGN "Shard leases" says how much skew the shard leases bear).
 */
public final class Leases {

    /** What a lease is on; stored as its name in lower case. */
    public enum Kind {
        /** A shard of a channel's stream: the key is {@link #shardKey}. */
        SHARD,
        /** A table, maintained for one of the channels that name it: the key is the table's. */
        TABLE;

        final String stored = name().toLowerCase();
    }

    /** One row: {@code owner} is empty when free; {@code channelArn} is the channel it is held for. */
    public record Lease(Kind kind, String key, String channelArn, String owner, long expiresAtMillis, long epoch,
            boolean finished) {
    }

    private static final String FREE = "";

    private final ServiceDatabase database;
    private final String owner;
    private final long durationMillis;
    private final LongSupplier clock;

    public Leases(ServiceDatabase database, String owner, Duration duration, LongSupplier clock) {
        this.database = database;
        this.owner = owner;
        this.durationMillis = duration.toMillis();
        this.clock = clock;
    }

    /** A shard's lease key: the channel's ARN and the shard's id (a space is in neither). */
    public static String shardKey(String channelArn, String shardId) {
        return channelArn + " " + shardId;
    }

    public String owner() {
        return owner;
    }

    public long durationMillis() {
        return durationMillis;
    }

    public long now() {
        return clock.getAsLong();
    }

    /**
     * Takes or renews the lease for a channel if it is free, expired or already this owner's, and not finished; a
     * new holder gets the next epoch, this owner keeps its own (a process restarted at the same host:port takes its
     * dead predecessor's lease back at once).
     *
     * @return the lease's epoch, or empty when another instance holds it or it is finished
     */
    public OptionalLong take(Kind kind, String key, String channelArn) {
        long now = now();
        try (Connection c = database.connect()) {
            try (PreparedStatement u = c.prepareStatement("INSERT INTO delivery_leases "
                    + "(kind, lease_key, channel_arn, owner, expires_at_ms, epoch, finished) VALUES (?, ?, ?, ?, ?, 1, 0) "
                    + "ON CONFLICT (kind, lease_key) DO UPDATE "
                    + "SET epoch = CASE WHEN delivery_leases.owner = excluded.owner "
                    + "THEN delivery_leases.epoch ELSE delivery_leases.epoch + 1 END, "
                    + "owner = excluded.owner, expires_at_ms = excluded.expires_at_ms, "
                    + "channel_arn = excluded.channel_arn "
                    + "WHERE delivery_leases.finished = 0 AND (delivery_leases.owner = excluded.owner "
                    + "OR delivery_leases.expires_at_ms <= ?)")) {
                u.setString(1, kind.stored);
                u.setString(2, key);
                u.setString(3, channelArn);
                u.setString(4, owner);
                u.setLong(5, now + durationMillis);
                u.setLong(6, now);
                if (u.executeUpdate() != 1) {
                    return OptionalLong.empty();
                }
            }
            try (PreparedStatement q = c.prepareStatement("SELECT epoch FROM delivery_leases "
                    + "WHERE kind = ? AND lease_key = ? AND owner = ?")) {
                q.setString(1, kind.stored);
                q.setString(2, key);
                q.setString(3, owner);
                try (ResultSet rs = q.executeQuery()) {
                    return rs.next() ? OptionalLong.of(rs.getLong(1)) : OptionalLong.empty();
                }
            }
        } catch (SQLException e) {
            throw database.failed("take the " + kind.stored + " lease " + key, e);
        }
    }

    /**
     * Takes a live lease from its holder, only if the row is still as seen (the holder has not renewed it since).
     * The holder learns it when it next renews.
     */
    public boolean takeFrom(Lease seen) {
        long now = now();
        try (Connection c = database.connect(); PreparedStatement u = c.prepareStatement("UPDATE delivery_leases "
                + "SET owner = ?, expires_at_ms = ?, epoch = epoch + 1 WHERE kind = ? AND lease_key = ? AND owner = ? "
                + "AND expires_at_ms = ? AND finished = 0")) {
            u.setString(1, owner);
            u.setLong(2, now + durationMillis);
            u.setString(3, seen.kind().stored);
            u.setString(4, seen.key());
            u.setString(5, seen.owner());
            u.setLong(6, seen.expiresAtMillis());
            return u.executeUpdate() == 1;
        } catch (SQLException e) {
            throw database.failed("take the " + seen.kind().stored + " lease " + seen.key(), e);
        }
    }

    /**
     * Renews the lease if this owner still holds it at that epoch and it has not expired (at its expiry it is already
     * another's to take: {@link #take} and this never both succeed).
     *
     * @return false when it expired or another instance took it: its work must stop
     */
    public boolean renew(Kind kind, String key, long epoch) {
        long now = now();
        try (Connection c = database.connect(); PreparedStatement u = c.prepareStatement(
                "UPDATE delivery_leases SET expires_at_ms = ? WHERE kind = ? AND lease_key = ? AND owner = ? "
                        + "AND epoch = ? AND expires_at_ms > ?")) {
            u.setLong(1, now + durationMillis);
            u.setString(2, kind.stored);
            u.setString(3, key);
            u.setString(4, owner);
            u.setLong(5, epoch);
            u.setLong(6, now);
            return u.executeUpdate() == 1;
        } catch (SQLException e) {
            throw database.failed("renew the " + kind.stored + " lease " + key, e);
        }
    }

    /** Renews every unfinished lease of the kind this owner holds, and returns their keys. */
    public Set<String> renewAll(Kind kind) {
        long now = now();
        Set<String> held = new HashSet<>();
        try (Connection c = database.connect()) {
            try (PreparedStatement u = c.prepareStatement("UPDATE delivery_leases SET expires_at_ms = ? "
                    + "WHERE kind = ? AND owner = ? AND finished = 0")) {
                u.setLong(1, now + durationMillis);
                u.setString(2, kind.stored);
                u.setString(3, owner);
                u.executeUpdate();
            }
            try (PreparedStatement q = c.prepareStatement("SELECT lease_key FROM delivery_leases "
                    + "WHERE kind = ? AND owner = ? AND finished = 0")) {
                q.setString(1, kind.stored);
                q.setString(2, owner);
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) {
                        held.add(rs.getString(1));
                    }
                }
            }
            return held;
        } catch (SQLException e) {
            throw database.failed("renew the " + kind.stored + " leases of " + owner, e);
        }
    }

    /** The leases of the kind held for a channel, or offered for it, by key. */
    public Map<String, Lease> of(Kind kind, String channelArn) {
        try (Connection c = database.connect(); PreparedStatement q = c.prepareStatement("SELECT lease_key, owner, "
                + "expires_at_ms, epoch, finished FROM delivery_leases WHERE kind = ? AND channel_arn = ?")) {
            q.setString(1, kind.stored);
            q.setString(2, channelArn);
            Map<String, Lease> leases = new HashMap<>();
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    leases.put(rs.getString(1), new Lease(kind, rs.getString(1), channelArn, rs.getString(2),
                            rs.getLong(3), rs.getLong(4), rs.getInt(5) != 0));
                }
            }
            return leases;
        } catch (SQLException e) {
            throw database.failed("read the " + kind.stored + " leases of " + channelArn, e);
        }
    }

    /** A free row for a lease nobody took yet (how long it waits for a taker is then visible). */
    public void offer(Kind kind, String key, String channelArn) {
        try (Connection c = database.connect(); PreparedStatement i = c.prepareStatement("INSERT INTO delivery_leases "
                + "(kind, lease_key, channel_arn, owner, expires_at_ms, epoch, finished) VALUES (?, ?, ?, ?, ?, 0, 0) "
                + "ON CONFLICT (kind, lease_key) DO NOTHING")) {
            i.setString(1, kind.stored);
            i.setString(2, key);
            i.setString(3, channelArn);
            i.setString(4, FREE);
            i.setLong(5, now());
            i.executeUpdate();
        } catch (SQLException e) {
            throw database.failed("offer the " + kind.stored + " lease " + key, e);
        }
    }

    /**
     * Moves a held lease to a higher epoch: the work's own record holds a newer epoch than this store ever gave (the
     * service database was recreated, or moved from SQLite to PostgreSQL).
     *
     * @return false when the lease is no longer held at {@code epoch}
     */
    public boolean raise(Kind kind, String key, long epoch, long higher) {
        try (Connection c = database.connect(); PreparedStatement u = c.prepareStatement(
                "UPDATE delivery_leases SET epoch = ? WHERE kind = ? AND lease_key = ? AND owner = ? AND epoch = ?")) {
            u.setLong(1, higher);
            u.setString(2, kind.stored);
            u.setString(3, key);
            u.setString(4, owner);
            u.setLong(5, epoch);
            return u.executeUpdate() == 1;
        } catch (SQLException e) {
            throw database.failed("raise the " + kind.stored + " lease " + key, e);
        }
    }

    /**
     * Ends the holder's run on the lease: it expires at once, so any instance may take it without waiting, and keeps
     * its owner and epoch, so this owner's next run takes it at the same epoch (a table then changes hands, and its
     * maintenance claim writes a metadata version, only when another instance takes it). Only at {@code epoch}: a run
     * that lost the lease ends no one else's.
     */
    public void expire(Kind kind, String key, long epoch) {
        try (Connection c = database.connect(); PreparedStatement u = c.prepareStatement(
                "UPDATE delivery_leases SET expires_at_ms = 0 WHERE kind = ? AND lease_key = ? AND owner = ? "
                        + "AND epoch = ?")) {
            u.setString(1, kind.stored);
            u.setString(2, key);
            u.setString(3, owner);
            u.setLong(4, epoch);
            u.executeUpdate();
        } catch (SQLException e) {
            throw database.failed("end the " + kind.stored + " lease " + key, e);
        }
    }

    /** Gives the lease up at once, if this owner holds it: it is free, and any instance may take it without waiting. */
    public void release(Kind kind, String key) {
        free("kind = ? AND lease_key = ?", kind.stored, key);
    }

    /** Gives up every lease of the kind this owner holds for a channel. */
    public void releaseChannel(Kind kind, String channelArn) {
        free("kind = ? AND channel_arn = ?", kind.stored, channelArn);
    }

    /** Gives up every lease of the kind this owner holds (a clean shutdown). */
    public void releaseAll(Kind kind) {
        free("kind = ?", kind.stored);
    }

    private void free(String where, String... values) {
        try (Connection c = database.connect(); PreparedStatement u = c.prepareStatement("UPDATE delivery_leases "
                + "SET owner = ?, expires_at_ms = ? WHERE " + where + " AND owner = ? AND finished = 0")) {
            u.setString(1, FREE);
            u.setLong(2, now()); // free since now
            int i = 3;
            for (String value : values) {
                u.setString(i++, value);
            }
            u.setString(i, owner);
            u.executeUpdate();
        } catch (SQLException e) {
            throw database.failed("release leases of " + owner, e);
        }
    }

    /** The work is done for good (a shard closed and delivered): whoever holds it, no one takes it again. */
    public void finish(Kind kind, String key) {
        try (Connection c = database.connect(); PreparedStatement u = c.prepareStatement(
                "UPDATE delivery_leases SET finished = 1 WHERE kind = ? AND lease_key = ?")) {
            u.setString(1, kind.stored);
            u.setString(2, key);
            u.executeUpdate();
        } catch (SQLException e) {
            throw database.failed("record the " + kind.stored + " lease " + key + " as finished", e);
        }
    }
}
