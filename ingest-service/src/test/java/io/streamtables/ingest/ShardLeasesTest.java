package io.streamtables.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.state.TestDatabase;
import io.streamtables.state.TestDatabases;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Shard leases on the two databases the service runs on ({@link TestDatabases}). Three owners share one database
 * and a clock the test moves.
 */
class ShardLeasesTest {

    static final long DURATION = 10_000;

    static Stream<String> databases() {
        return TestDatabases.both();
    }

    @AfterAll
    static void dropSchemas() throws SQLException {
        TestDatabases.dropSchemas();
    }

    private final AtomicLong clock = new AtomicLong(1_700_000_000_000L);
    private final String channel = "arn:aws:kinesis:us-east-1:000000000000:channel/leases-"
            + UUID.randomUUID().toString().substring(0, 8);

    private ShardLeases owner(String url, String name) {
        return new ShardLeases(TestDatabase.open(url).database(), name, Duration.ofMillis(DURATION), clock::get);
    }

    @ParameterizedTest
    @MethodSource("databases")
    void oneOwnerAtATimeUntilTheLeaseExpires(String database) {
        String url = TestDatabases.url(database);
        ShardLeases a = owner(url, "a");
        ShardLeases b = owner(url, "b");
        assertTrue(a.acquire(channel, "shard-0"));
        assertTrue(a.acquire(channel, "shard-0"), "already ours: taken again");
        assertFalse(b.acquire(channel, "shard-0"), "held by a");
        assertTrue(a.held(channel, "shard-0"));
        assertFalse(b.held(channel, "shard-0"));

        // a renews: the lease outlives its first duration
        clock.addAndGet(DURATION / 2);
        a.heartbeat();
        clock.addAndGet(DURATION * 3 / 4);
        assertFalse(b.acquire(channel, "shard-0"), "renewed by a");
        assertTrue(a.held(channel, "shard-0"));

        // a stops renewing: it stops reading before the expiry, b takes the lease after it
        clock.addAndGet(DURATION / 10);
        assertFalse(a.held(channel, "shard-0"), "a must stop a fifth of the duration before the expiry");
        assertFalse(b.acquire(channel, "shard-0"), "not yet expired");
        clock.addAndGet(DURATION / 5);
        assertTrue(b.acquire(channel, "shard-0"), "expired: taken over");
        assertTrue(b.held(channel, "shard-0"));
        assertEquals("b", a.of(channel).get("shard-0").owner());

        // a comes back: its heartbeat does not give the lease back, and a cannot take it
        a.heartbeat();
        assertFalse(a.held(channel, "shard-0"));
        assertFalse(a.acquire(channel, "shard-0"));
    }

    @ParameterizedTest
    @MethodSource("databases")
    void aReleasedLeaseIsFreeAtOnceAndAFinishedShardForEveryone(String database) {
        String url = TestDatabases.url(database);
        ShardLeases a = owner(url, "a");
        ShardLeases b = owner(url, "b");
        assertTrue(a.acquire(channel, "shard-0"));
        assertTrue(a.acquire(channel, "shard-1"));
        a.release(channel, "shard-0");
        assertFalse(a.held(channel, "shard-0"));
        assertTrue(b.acquire(channel, "shard-0"), "released: free without waiting");

        a.finish(channel, "shard-1");
        assertTrue(a.of(channel).get("shard-1").finished());
        clock.addAndGet(DURATION * 2);
        assertFalse(b.acquire(channel, "shard-1"), "a finished shard is never read again");
        assertFalse(a.acquire(channel, "shard-1"));

        // a clean shutdown frees everything and leaves the live instances
        b.heartbeat();
        a.heartbeat();
        assertEquals(Set.of("a", "b"), b.liveInstances());
        b.releaseAll();
        assertEquals(Set.of("a"), a.liveInstances());
        assertTrue(a.acquire(channel, "shard-0"));
    }

    @ParameterizedTest
    @MethodSource("databases")
    void threeOwnersShareTheShardsAndTheSurvivorsTakeOverADeadOnes(String database) {
        String url = TestDatabases.url(database);
        List<String> shards = List.of("s0", "s1", "s2", "s3", "s4", "s5", "s6");
        ShardLeases a = owner(url, "a");
        ShardLeases b = owner(url, "b");
        ShardLeases c = owner(url, "c");
        List<ShardLeases> all = List.of(a, b, c);
        all.forEach(ShardLeases::heartbeat);
        for (int round = 0; round < 3; round++) {
            all.forEach(o -> o.balance(channel, shards));
        }
        assertExclusive(all, shards);
        for (ShardLeases o : all) {
            assertTrue(o.held(channel).size() <= 3, o.owner() + " holds more than ceil(7/3): " + o.held(channel));
            assertFalse(o.held(channel).isEmpty(), o.owner() + " reads nothing");
        }

        // c dies (no release): within a lease duration a and b hold every shard, 4 and 3
        for (int step = 0; step < 4; step++) {
            clock.addAndGet(DURATION / 3);
            a.heartbeat();
            b.heartbeat();
            a.balance(channel, shards);
            b.balance(channel, shards);
        }
        assertEquals(Set.of("a", "b"), a.liveInstances());
        assertExclusive(List.of(a, b), shards);
        assertEquals(7, a.held(channel).size() + b.held(channel).size(), "a: " + a.held(channel) + ", b: "
                + b.held(channel));
        assertTrue(Math.abs(a.held(channel).size() - b.held(channel).size()) <= 1);
        assertTrue(c.held(channel).isEmpty(), "c's leases ran out");
    }

    @ParameterizedTest
    @MethodSource("databases")
    void aNewOwnerTakesItsShareFromOneThatHoldsTooMany(String database) {
        String url = TestDatabases.url(database);
        List<String> shards = List.of("s0", "s1", "s2", "s3");
        ShardLeases a = owner(url, "a");
        a.heartbeat();
        assertEquals(Set.copyOf(shards), a.balance(channel, shards), "alone: every shard");

        ShardLeases b = owner(url, "b");
        b.heartbeat();
        for (int step = 0; step < 4; step++) {
            clock.addAndGet(1_000);
            b.balance(channel, shards);
            a.heartbeat(); // a learns which leases it lost
            a.balance(channel, shards);
        }
        assertEquals(2, a.held(channel).size(), "a: " + a.held(channel));
        assertEquals(2, b.held(channel).size(), "b: " + b.held(channel));
        assertExclusive(List.of(a, b), shards);
    }

    @ParameterizedTest
    @MethodSource("databases")
    void beyondItsShareAnOwnerTakesOnlyWhatNobodyTookForALeaseDuration(String database) {
        String url = TestDatabases.url(database);
        List<String> shards = List.of("s0", "s1", "s2", "s3");
        ShardLeases a = owner(url, "a");
        ShardLeases idle = owner(url, "idle"); // live, but does not read this stream
        a.heartbeat();
        idle.heartbeat();
        assertEquals(2, a.balance(channel, shards).size(), "share: ceil(4 / 2)");
        clock.addAndGet(DURATION / 2);
        a.heartbeat();
        idle.heartbeat();
        assertEquals(2, a.balance(channel, shards).size(), "the others may still take theirs");
        clock.addAndGet(DURATION * 2 / 3);
        a.heartbeat();
        idle.heartbeat();
        assertEquals(3, a.balance(channel, shards).size(), "free for a lease duration: one more per call");
        assertEquals(4, a.balance(channel, shards).size());
    }

    private void assertExclusive(List<ShardLeases> owners, List<String> shards) {
        Set<String> seen = new HashSet<>();
        for (ShardLeases o : owners) {
            for (String s : o.held(channel)) {
                assertTrue(seen.add(s), s + " held by two owners");
            }
        }
        assertEquals(Set.copyOf(shards), seen, "every shard held");
        Map<String, ShardLeases.Lease> rows = owners.get(0).of(channel);
        for (ShardLeases o : owners) {
            for (String s : o.held(channel)) {
                assertEquals(o.owner(), rows.get(s).owner(), "the table agrees on " + s);
            }
        }
    }
}
