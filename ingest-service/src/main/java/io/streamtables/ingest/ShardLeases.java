package io.streamtables.ingest;

import io.streamtables.state.Leases;
import io.streamtables.state.ServiceDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * One ingest instance's leases on the shards of the streams it reads, kept in the service database next to the
 * channel registry (SQLite or PostgreSQL), so that several instances share a stream's shards: a shard is read by
 * the instance that holds its lease, a lease not renewed within its duration may be taken by another instance,
 * and each instance takes about its fair share. Duplicates from a moment of overlap (a stalled owner, a
 * rebalance) are harmless: the commit stage drops what its watermark already holds.
 *
 * <p>Time is this process's clock ({@code clock}, {@link System#currentTimeMillis()} in service): an expiry is
 * written as the writer's now + duration and read against the reader's now. The database clock would remove skew
 * between hosts, but SQLite has none of its own and tests want a clock they control. Skew between hosts moves a
 * takeover earlier by the skew; an owner renews every third of the duration, so its lease never looks expired to
 * another host while the skew stays under two thirds of the duration, and an owner stops reading a fifth of the
 * duration before its own expiry ({@link #SAFETY_DIVISOR}), so a stalled owner has stopped before a host with up
 * to that much skew takes over. Hosts are expected to run NTP.
 */
public final class ShardLeases {

    /** One row: {@code owner} is empty when the lease was released; a finished shard is closed and delivered. */
    public record Lease(String channelArn, String shardId, String owner, long expiresAtMillis, boolean finished) {
    }

    /** An owner stops reading at this fraction of the duration before its lease expires (see the class comment). */
    static final int SAFETY_DIVISOR = 5;

    private final ServiceDatabase database;
    /** The rows: the service's one lease store, shard leases of kind {@link Leases.Kind#SHARD}. */
    private final Leases rows;
    /**
     * The leases held, as far as this instance knows: channel → shard → when last acquired or renewed. By channel,
     * as each stream's reader asks for its own (with a thousand channels, a scan of all of them was most of a listing).
     */
    private final Map<String, Map<String, Long>> held = new ConcurrentHashMap<>();

    public ShardLeases(ServiceDatabase database, String owner, Duration duration, LongSupplier clock) {
        if (duration.toMillis() < 300) {
            throw new IllegalArgumentException("delivery.ingest.lease-duration must be at least 300 ms: " + duration);
        }
        this.database = database;
        this.rows = new Leases(database, owner, duration, clock);
    }

    public String owner() {
        return rows.owner();
    }

    public long durationMillis() {
        return rows.durationMillis();
    }

    /**
     * Says this instance is alive and renews every lease it holds; a lease another instance took meanwhile is
     * dropped here, which stops its reader. Run every third of the duration.
     */
    public synchronized void heartbeat() {
        long now = rows.now();
        try (Connection c = database.connect()) {
            try (PreparedStatement i = c.prepareStatement("INSERT INTO delivery_ingest_instances (owner, expires_at_ms) "
                    + "VALUES (?, ?) ON CONFLICT (owner) DO UPDATE SET expires_at_ms = excluded.expires_at_ms")) {
                i.setString(1, owner());
                i.setLong(2, now + durationMillis());
                i.executeUpdate();
            }
            try (PreparedStatement d = c.prepareStatement(
                    "DELETE FROM delivery_ingest_instances WHERE expires_at_ms < ?")) {
                d.setLong(1, now - 10 * durationMillis()); // long dead: keeps the table small
                d.executeUpdate();
            }
        } catch (SQLException e) {
            throw database.failed("renew the leases of " + owner(), e);
        }
        Set<String> confirmed = rows.renewAll(Leases.Kind.SHARD);
        // a lease acquired while this ran keeps its own, later time; one not confirmed and older is lost
        held.forEach((channelArn, shards) -> {
            for (String shardId : shards.keySet()) {
                shards.computeIfPresent(shardId, (key, since) -> {
                    if (confirmed.contains(Leases.shardKey(channelArn, shardId))) {
                        return Math.max(since, now);
                    }
                    return since >= now ? since : null;
                });
            }
        });
    }

    /** The ingest instances whose heartbeat has not expired, this one included. */
    public Set<String> liveInstances() {
        Set<String> live = new LinkedHashSet<>();
        live.add(owner());
        try (Connection c = database.connect(); PreparedStatement q = c.prepareStatement(
                "SELECT owner FROM delivery_ingest_instances WHERE expires_at_ms > ? ORDER BY owner")) {
            q.setLong(1, rows.now());
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    live.add(rs.getString(1));
                }
            }
            return live;
        } catch (SQLException e) {
            throw database.failed("read the live ingest instances", e);
        }
    }

    /** The lease rows of a channel by shard id. */
    public Map<String, Lease> of(String channelArn) {
        Map<String, Lease> leases = new HashMap<>();
        String prefix = Leases.shardKey(channelArn, "");
        rows.of(Leases.Kind.SHARD, channelArn).forEach((key, row) -> {
            String shardId = key.substring(prefix.length());
            leases.put(shardId, new Lease(channelArn, shardId, row.owner(), row.expiresAtMillis(), row.finished()));
        });
        return leases;
    }

    /** Takes the lease if it is free, expired or already ours, in one statement (the row decides, not a read). */
    public synchronized boolean acquire(String channelArn, String shardId) {
        long now = rows.now();
        return took(rows.take(Leases.Kind.SHARD, Leases.shardKey(channelArn, shardId), channelArn).isPresent(),
                channelArn, shardId, now);
    }

    /**
     * Takes a live lease from an instance that holds more than its share: only if the row is still as seen (the
     * owner has not renewed it since). The owner learns it at its next heartbeat and stops reading the shard.
     */
    public synchronized boolean steal(Lease seen) {
        long now = rows.now();
        Leases.Lease row = new Leases.Lease(Leases.Kind.SHARD, Leases.shardKey(seen.channelArn(), seen.shardId()),
                seen.channelArn(), seen.owner(), seen.expiresAtMillis(), 0, false);
        return took(rows.takeFrom(row), seen.channelArn(), seen.shardId(), now);
    }

    private boolean took(boolean taken, String channelArn, String shardId, long now) {
        if (taken) {
            held.computeIfAbsent(channelArn, c -> new ConcurrentHashMap<>()).put(shardId, now);
        }
        return taken;
    }

    /**
     * Whether this instance may read the shard: it acquired or renewed the lease recently enough that no other
     * instance can have taken it yet. Checked by the shard's reader before every call and every chunk.
     */
    public boolean held(String channelArn, String shardId) {
        Map<String, Long> shards = held.get(channelArn);
        Long since = shards == null ? null : shards.get(shardId);
        return since != null && rows.now() < since + durationMillis() - durationMillis() / SAFETY_DIVISOR;
    }

    /** The shards of a channel whose lease this instance holds ({@link #held(String, String)}). */
    public Set<String> held(String channelArn) {
        Set<String> shards = new HashSet<>();
        for (String shardId : held.getOrDefault(channelArn, Map.of()).keySet()) {
            if (held(channelArn, shardId)) {
                shards.add(shardId);
            }
        }
        return shards;
    }

    /** The number of leases this instance holds (the {@code delivery.shard.leases} gauge). */
    public int heldCount() {
        return held.keySet().stream().mapToInt(channelArn -> held(channelArn).size()).sum();
    }

    private void forget(String channelArn, String shardId) {
        Map<String, Long> shards = held.get(channelArn);
        if (shards != null) {
            shards.remove(shardId);
        }
    }

    /** Gives the lease up at once (the reader has stopped): another instance may take it without waiting. */
    public synchronized void release(String channelArn, String shardId) {
        forget(channelArn, shardId);
        rows.release(Leases.Kind.SHARD, Leases.shardKey(channelArn, shardId));
    }

    /** Gives up every lease of a channel (its reading stopped). */
    public synchronized void releaseChannel(String channelArn) {
        held.remove(channelArn);
        rows.releaseChannel(Leases.Kind.SHARD, channelArn);
    }

    /** A clean shutdown: every lease is free at once and this instance no longer counts as live. */
    public synchronized void releaseAll() {
        held.clear();
        rows.releaseAll(Leases.Kind.SHARD);
        try (Connection c = database.connect(); PreparedStatement d = c.prepareStatement(
                "DELETE FROM delivery_ingest_instances WHERE owner = ?")) {
            d.setString(1, owner());
            d.executeUpdate();
        } catch (SQLException e) {
            throw database.failed("remove ingest instance " + owner(), e);
        }
    }

    /**
     * The shard is closed and everything read from it is committed: its children may start, on any instance, and
     * no one reads it again. A fact about the shard, so it is recorded whoever holds the lease now.
     */
    public synchronized void finish(String channelArn, String shardId) {
        forget(channelArn, shardId);
        rows.finish(Leases.Kind.SHARD, Leases.shardKey(channelArn, shardId));
    }

    /**
     * Takes this instance's share of the shards ready to be read and returns those it holds. The share is
     * ceil(ready / live instances); free or expired leases are taken first, then, when none is left and this
     * instance is still under its share, one lease per call from the instance that holds the most above its
     * share. Beyond its share, an instance takes one lease per call that nobody took for a whole lease duration
     * (an instance counted live but not reading keeps no shard unread). Called after every listing of the stream.
     */
    public Set<String> balance(String channelArn, Collection<String> ready) {
        long now = rows.now();
        Map<String, Lease> leases = of(channelArn);
        for (String shard : ready) {
            if (!leases.containsKey(shard)) {
                // a free row: how long a shard waits for a reader is visible
                rows.offer(Leases.Kind.SHARD, Leases.shardKey(channelArn, shard), channelArn);
            }
        }
        Set<String> live = liveInstances();
        int share = (ready.size() + live.size() - 1) / live.size();
        Set<String> mine = new HashSet<>(held(channelArn));
        mine.retainAll(ready);
        List<String> free = new ArrayList<>();
        Map<String, List<Lease>> others = new HashMap<>();
        for (String shard : ready) {
            Lease l = leases.get(shard);
            if (mine.contains(shard) || (l != null && l.finished())) {
                continue;
            }
            if (l != null && l.owner().equals(owner())) {
                free.add(0, shard); // ours in the table though not renewed in time here (a database outage)
            } else if (l == null || l.expiresAtMillis() <= now) {
                free.add(shard);
            } else {
                others.computeIfAbsent(l.owner(), o -> new ArrayList<>()).add(l);
            }
        }
        // instances starting together try different shards first; our own rows stay first
        int own = (int) free.stream()
                .filter(s -> leases.get(s) != null && leases.get(s).owner().equals(owner())).count();
        Collections.shuffle(free.subList(own, free.size()));
        for (String shard : new ArrayList<>(free)) {
            if (mine.size() >= share) {
                break;
            }
            free.remove(shard);
            if (acquire(channelArn, shard)) {
                mine.add(shard);
            }
        }
        if (mine.size() < share) {
            others.values().stream().filter(l -> l.size() > share).max(Comparator.comparingInt(List::size))
                    .ifPresent(victim -> {
                        if (steal(victim.get(0))) {
                            mine.add(victim.get(0).shardId());
                        }
                    });
        } else {
            for (String shard : free) {
                Lease l = leases.get(shard);
                if (l != null && l.expiresAtMillis() <= now - durationMillis() && acquire(channelArn, shard)) {
                    mine.add(shard);
                    break;
                }
            }
        }
        return mine;
    }
}
