package io.streamtables.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.bus.KinesisRecord;
import io.streamtables.bus.RecordChunk;
import io.streamtables.bus.Sequences;
import io.streamtables.channel.Channel;
import io.streamtables.config.KinesisLocal;
import io.streamtables.state.TestDatabase;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.Shard;

/**
 * Two ingest instances (two lease owners, each with its {@link StreamReader} and heartbeat) read one 4-shard stream
 * of kinesis-local through leases in one SQLite database: in steady state each shard is read by exactly one of
 * them; when one crashes (stops without releasing its leases), the other reads all four within the lease duration
 * plus a listing. A chunk handed on counts as committed at once (the test's commit stage), so a new owner resumes
 * after it, as from the table's watermarks.
 */
class SharedShardsTest {

    static final Duration LEASE = Duration.ofSeconds(3);

    static {
        try {
            // registers the driver for this class loader: after a @QuarkusTest in this JVM, DriverManager knows
            // only the application class loader's copy
            Class.forName("org.sqlite.JDBC");
        } catch (ClassNotFoundException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** One ingest instance: its leases, its reader of the stream, its heartbeat, and what it handed on. */
    final class Instance {
        final ShardLeases leases;
        final AtomicBoolean running = new AtomicBoolean(true);
        final ReaderPool streamReads = new ReaderPool(1, "streams");
        final ReaderPool shardReads = new ReaderPool(4, "shards");
        final ScheduledExecutorService heartbeat = Executors.newSingleThreadScheduledExecutor();

        Instance(String url, String name) {
            leases = new ShardLeases(TestDatabase.open(url).database(), name, LEASE, System::currentTimeMillis);
            leases.heartbeat();
            heartbeat.scheduleAtFixedRate(leases::heartbeat, LEASE.toMillis() / 3, LEASE.toMillis() / 3,
                    TimeUnit.MILLISECONDS);
            ChunkSink sink = (chunk, wanted) -> handedOn(leases.owner(), chunk);
            StreamReader reader = new StreamReader(kinesis, null, channel, activatedAt, committed, sink,
                    new RewindRequests(), leases, shardReads, running::get, 1_000, (arn, shard, millis) -> { },
                    channel::freshnessSeconds, () -> redeliverAfterMillis);
            streamReads.start("stream", reader::step, reader::stop);
        }

        /** Dies: stops renewing and reading, and releases nothing. */
        void crash() {
            heartbeat.shutdownNow();
            running.set(false);
            streamReads.stop(0);
            shardReads.stop(0);
        }
    }

    /** A chunk handed on, by whom and when. */
    record Handed(String owner, String shardId, long atMillis, List<String> sequences) {
    }

    private KinesisClient kinesis;
    private String streamName;
    private Channel channel;
    private Instant activatedAt;
    private final Map<String, String> watermarks = new ConcurrentHashMap<>();
    private final List<Handed> handed = java.util.Collections.synchronizedList(new ArrayList<>());
    private final CommittedWatermarks committed = new CommittedWatermarks(null) {
        @Override
        public Map<String, String> of(Channel c) {
            return Map.copyOf(watermarks);
        }
    };
    private final List<Instance> instances = new ArrayList<>();
    /** When a reader reads again after the table's watermark a chunk the table does not hold yet. */
    private long redeliverAfterMillis = 60_000;

    /** Shards whose chunks the test's commit stage holds back (not committed) until {@link #commitHeldBack}. */
    private final Set<String> heldBack = ConcurrentHashMap.newKeySet();
    private final Map<String, String> pending = new ConcurrentHashMap<>();

    private void handedOn(String owner, RecordChunk chunk) {
        handed.add(new Handed(owner, chunk.token().shardId(), System.currentTimeMillis(),
                chunk.records().stream().map(KinesisRecord::sequenceNumber).toList()));
        String shard = chunk.token().shardId();
        (heldBack.contains(shard) ? pending : watermarks).merge(shard, chunk.token().lastSequence(), Sequences::max);
    }

    private void commitHeldBack() {
        heldBack.clear();
        pending.forEach((shard, last) -> watermarks.merge(shard, last, Sequences::max));
    }

    /** A stream of that many shards in kinesis-local and a channel on it, activated now; returns its shards. */
    private List<Shard> stream(int shardCount) throws InterruptedException {
        kinesis = KinesisLocal.client();
        streamName = "leases-" + Long.toString(System.currentTimeMillis(), 36);
        KinesisLocal.createStream(kinesis, streamName, shardCount);
        List<Shard> shards = kinesis.listShards(r -> r.streamName(streamName)).shards();
        assertEquals(shardCount, shards.size());
        channel = KinesisLocal.channel(kinesis, streamName);
        activatedAt = Instant.now().minusSeconds(1);
        return shards;
    }

    @Test
    void eachShardIsReadByOneInstanceAndASurvivorTakesOverACrashedOnesShards() throws Exception {
        List<Shard> shards = stream(4);
        String url = "jdbc:sqlite:" + Files.createTempDirectory("leases").resolve("delivery.db");

        Instance a = new Instance(url, "a");
        Instance b = new Instance(url, "b");
        instances.add(a);
        instances.add(b);

        // steady state: 2 shards each, every shard read by exactly one of them while records flow
        awaitHeld(2, a, b);
        Thread.sleep(1_000); // readers started
        long steadyFrom = System.currentTimeMillis();
        Set<String> produced = new HashSet<>();
        for (int round = 0; round < 6; round++) {
            produced.addAll(produce(shards, round));
            Thread.sleep(1_000);
        }
        awaitHanded(produced, 30);
        Map<String, Set<String>> readersByShard = new TreeMap<>();
        synchronized (handed) {
            handed.stream().filter(h -> h.atMillis() >= steadyFrom)
                    .forEach(h -> readersByShard.computeIfAbsent(h.shardId(), s -> new HashSet<>()).add(h.owner()));
        }
        System.out.printf("steady state: a holds %s, b holds %s; shards read by %s%n", a.leases.held(channel.arn()),
                b.leases.held(channel.arn()), readersByShard);
        assertEquals(4, readersByShard.size(), "records on every shard were handed on: " + readersByShard);
        readersByShard.forEach((shard, owners) -> assertEquals(1, owners.size(), shard + " read by " + owners));
        Set<String> bShards = b.leases.held(channel.arn());
        bShards.forEach(s -> assertEquals(Set.of("b"), readersByShard.get(s)));

        // b crashes: a takes b's shards within the lease duration and a listing, and reads them
        long crashedAt = System.currentTimeMillis();
        b.crash();
        long deadline = crashedAt + LEASE.toMillis() + StreamReader.LIST_INTERVAL_MS + 10_000;
        while (a.leases.held(channel.arn()).size() < 4) {
            assertTrue(System.currentTimeMillis() < deadline, "a took only " + a.leases.held(channel.arn()));
            Thread.sleep(100);
        }
        long takeover = System.currentTimeMillis() - crashedAt;
        Set<String> afterCrash = new HashSet<>();
        for (int round = 10; round < 14; round++) {
            afterCrash.addAll(produce(shards, round));
            Thread.sleep(500);
        }
        awaitHanded(afterCrash, 30);
        Map<String, Set<String>> afterByShard = new TreeMap<>();
        synchronized (handed) {
            handed.stream().filter(h -> h.sequences().stream().anyMatch(afterCrash::contains))
                    .forEach(h -> afterByShard.computeIfAbsent(h.shardId(), s -> new HashSet<>()).add(h.owner()));
        }
        System.out.printf("b crashed: a held all 4 leases after %d ms (lease %d ms + listing %d ms); records sent "
                + "after the crash were read by %s%n", takeover, LEASE.toMillis(), StreamReader.LIST_INTERVAL_MS,
                afterByShard);
        assertTrue(takeover <= LEASE.toMillis() + StreamReader.LIST_INTERVAL_MS + 1_500,
                "takeover took " + takeover + " ms");
        assertEquals(4, afterByShard.size());
        afterByShard.forEach((shard, owners) -> assertEquals(Set.of("a"), owners, shard));
    }

    /**
     * A split while two instances read: the parent is read to its end and recorded finished, and only then are its
     * children read, by whichever instance takes their leases (the finished mark is in the shared table).
     */
    @Test
    void childrenOfASplitShardAreReadOnlyAfterTheParentIsFinishedOnEitherInstance() throws Exception {
        List<Shard> shards = stream(2);
        String url = "jdbc:sqlite:" + Files.createTempDirectory("leases").resolve("delivery.db");
        Instance a = new Instance(url, "a");
        Instance b = new Instance(url, "b");
        instances.add(a);
        instances.add(b);
        awaitHeld(1, a, b);
        Shard parent = shards.get(0);
        heldBack.add(parent.shardId()); // the parent is not delivered until the test says so
        Set<String> produced = new HashSet<>(produce(shards, 0));
        awaitHanded(produced, 30);

        String parentOwner = a.leases.held(channel.arn()).contains(parent.shardId()) ? "a" : "b";
        java.math.BigInteger start = new java.math.BigInteger(parent.hashKeyRange().startingHashKey());
        java.math.BigInteger end = new java.math.BigInteger(parent.hashKeyRange().endingHashKey());
        kinesis.splitShard(r -> r.streamName(streamName).shardToSplit(parent.shardId())
                .newStartingHashKey(start.add(end).shiftRight(1).toString()));
        KinesisLocal.awaitActive(kinesis, streamName);
        List<Shard> after = kinesis.listShards(r -> r.streamName(streamName)).shards();
        List<Shard> children = after.stream().filter(s -> parent.shardId().equals(s.parentShardId())).toList();
        assertEquals(2, children.size(), "children of " + parent.shardId() + " in " + after);
        List<Shard> open = new ArrayList<>(children);
        open.add(shards.get(1));
        Set<String> afterSplit = new HashSet<>();
        for (int round = 1; round < 4; round++) {
            afterSplit.addAll(produce(open, round));
            Thread.sleep(500);
        }
        Thread.sleep(2 * StreamReader.LIST_INTERVAL_MS + 1_000); // listings on both instances
        Set<String> childIds = Set.of(children.get(0).shardId(), children.get(1).shardId());
        synchronized (handed) {
            assertTrue(handed.stream().noneMatch(h -> childIds.contains(h.shardId())),
                    "a child was read while its parent was not delivered");
        }
        assertTrue(!a.leases.of(channel.arn()).get(parent.shardId()).finished(), "finished before delivered");

        long deliveredAt = System.currentTimeMillis();
        commitHeldBack();
        awaitHanded(afterSplit, 40);
        assertTrue(a.leases.of(channel.arn()).get(parent.shardId()).finished(), "the parent is recorded finished");
        Map<String, Set<String>> readers = new TreeMap<>();
        synchronized (handed) {
            handed.forEach(h -> readers.computeIfAbsent(h.shardId(), s -> new HashSet<>()).add(h.owner()));
            for (String child : childIds) {
                long first = handed.stream().filter(h -> h.shardId().equals(child))
                        .mapToLong(Handed::atMillis).min().orElseThrow();
                assertTrue(first >= deliveredAt, child + " read before its parent was delivered");
            }
        }
        System.out.printf("split: parent %s read by %s; shards read by %s%n", parent.shardId(), parentOwner, readers);
        readers.forEach((shard, owners) -> assertEquals(1, owners.size(), shard + " read by " + owners));
    }

    /**
     * The shards change only by resharding, which ends the shards it replaces: while no reader reaches an end, the
     * stream is listed once per {@link StreamReader#RELIST_MS}, not at every balancing of the leases (every
     * {@link StreamReader#LIST_INTERVAL_MS}: 4 listings in 7 s before), and its shards are read all the same.
     */
    @Test
    void theShardsAreListedAgainOnlyAfterTheRelistIntervalWhileNoShardEnds() throws Exception {
        List<Shard> shards = stream(2);
        KinesisClient real = kinesis;
        ShardReaderTest.TimedKinesis counting = new ShardReaderTest.TimedKinesis(real);
        kinesis = counting;
        Instance a = new Instance("jdbc:sqlite:" + Files.createTempDirectory("leases").resolve("delivery.db"), "a");
        instances.add(a);
        kinesis = real;
        Set<String> produced = new HashSet<>(produce(shards, 0));
        awaitHanded(produced, 30);
        Thread.sleep(3 * StreamReader.LIST_INTERVAL_MS + 1_000);
        assertEquals(1, counting.listings.get(), "listings of a stream whose shards did not change");
        assertEquals(2, a.leases.held(channel.arn()).size());
    }

    /**
     * A chunk handed on and then lost (over Kafka: the commit instance that held it died after the offset was
     * committed) while the shard receives nothing more: the reader notices that the table's watermark stays below
     * what it handed on and reads the shard again after the watermark, once; the other shard is not read again.
     */
    @Test
    void aLostChunkIsReadAgainWhenTheShardReceivesNothingMore() throws Exception {
        redeliverAfterMillis = 3_000;
        List<Shard> shards = stream(2);
        String url = "jdbc:sqlite:" + Files.createTempDirectory("leases").resolve("delivery.db");
        Instance a = new Instance(url, "a");
        instances.add(a);
        awaitHeld(2, a);
        Thread.sleep(1_000); // readers started
        String lost = shards.get(0).shardId();
        String kept = shards.get(1).shardId();
        heldBack.add(lost);
        Set<String> produced = produce(shards, 0);
        awaitHanded(produced, 30);
        pending.clear(); // the commit instance holding the chunk of `lost` died
        long lostAt = System.currentTimeMillis();

        long deadline = lostAt + redeliverAfterMillis + StreamReader.LIST_INTERVAL_MS + 10_000;
        while (timesHanded(lost, produced) < 2) {
            assertTrue(System.currentTimeMillis() < deadline, "the lost chunk was not read again");
            Thread.sleep(100);
        }
        long again = System.currentTimeMillis() - lostAt;
        commitHeldBack(); // the new commit instance commits the chunk read again
        String last = produced.stream().filter(q -> handedBy(lost).contains(q)).max(Sequences.ORDER).orElseThrow();
        assertEquals(last, watermarks.get(lost));
        Thread.sleep(redeliverAfterMillis + 2 * StreamReader.LIST_INTERVAL_MS); // delivered now: no more re-reads
        System.out.printf("lost chunk of %s read again %d ms after it was lost (after %d ms + a listing); handed on "
                + "%d times, the other shard's %d times%n", lost, again, redeliverAfterMillis,
                timesHanded(lost, produced), timesHanded(kept, produced));
        assertEquals(2, timesHanded(lost, produced));
        assertEquals(1, timesHanded(kept, produced));
    }

    /**
     * Over Kafka a chunk is taken as soon as the broker has it, so a reader whose chunks the commit stage never
     * commits would go on reading the whole stream onto the bus. It pauses once its oldest chunk has waited for
     * the table that long, and goes on when the table takes them.
     */
    @Test
    void aShardWhoseChunksTheTableDoesNotTakePausesUntilItDoes() throws Exception {
        redeliverAfterMillis = 6_000;
        List<Shard> shards = stream(1);
        String url = "jdbc:sqlite:" + Files.createTempDirectory("leases").resolve("delivery.db");
        Instance a = new Instance(url, "a");
        instances.add(a);
        awaitHeld(1, a);
        Thread.sleep(1_000); // the reader started
        String shard = shards.get(0).shardId();
        heldBack.add(shard); // the commit stage takes nothing

        Map<String, Long> firstHanded = new ConcurrentHashMap<>();
        long began = System.currentTimeMillis();
        Set<String> produced = new HashSet<>();
        while (System.currentTimeMillis() - began < 14_000) {
            produced.addAll(produce(shards, produced.size()));
            Thread.sleep(300);
            synchronized (handed) {
                handed.forEach(h -> h.sequences().forEach(q -> firstHanded.putIfAbsent(q, h.atMillis())));
            }
        }
        // the time since the last record handed on counts too: a pause that lasts to the end is the longest gap
        List<Long> times = new ArrayList<>(firstHanded.values().stream().sorted().toList());
        assertFalse(times.isEmpty(), "nothing handed on while the table took nothing");
        times.add(System.currentTimeMillis());
        long longestGap = 0;
        for (int i = 1; i < times.size(); i++) {
            longestGap = Math.max(longestGap, times.get(i) - times.get(i - 1));
        }
        System.out.printf("paused reader: records produced every 300 ms for 14 s; longest time without a new record "
                + "handed on %d ms%n", longestGap);
        assertTrue(longestGap >= 3_000, "the reader never paused: longest gap " + longestGap + " ms");

        commitHeldBack(); // the table takes them: reading goes on, and every record is handed on
        awaitHanded(produced, 30);
    }

    /** Waits up to 30 s until every one of {@code instances} holds {@code each} leases of the channel. */
    private void awaitHeld(int each, Instance... instances) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 30_000;
        while (!Arrays.stream(instances).allMatch(i -> i.leases.held(channel.arn()).size() == each)) {
            assertTrue(System.currentTimeMillis() < deadline, "not " + each + " leases each in 30 s: "
                    + Arrays.stream(instances).map(i -> i.leases.owner() + " " + i.leases.held(channel.arn())).toList());
            Thread.sleep(200);
        }
    }

    /** How many times the records of {@code produced} on that shard were handed on (each record as often). */
    private int timesHanded(String shardId, Set<String> produced) {
        Map<String, Integer> times = new HashMap<>();
        synchronized (handed) {
            handed.stream().filter(h -> h.shardId().equals(shardId)).flatMap(h -> h.sequences().stream())
                    .filter(produced::contains).forEach(q -> times.merge(q, 1, Integer::sum));
        }
        assertTrue(new HashSet<>(times.values()).size() <= 1, "records handed on unevenly: " + times);
        return times.values().stream().findFirst().orElse(0);
    }

    private Set<String> handedBy(String shardId) {
        synchronized (handed) {
            Set<String> s = new HashSet<>();
            handed.stream().filter(h -> h.shardId().equals(shardId)).forEach(h -> s.addAll(h.sequences()));
            return s;
        }
    }

    /** 5 records on each shard (an explicit hash key in its range); returns their sequence numbers. */
    private Set<String> produce(List<Shard> shards, int round) {
        List<PutRecordsRequestEntry> entries = new ArrayList<>();
        for (Shard s : shards) {
            for (int i = 0; i < 5; i++) {
                entries.add(PutRecordsRequestEntry.builder().partitionKey("k")
                        .explicitHashKey(s.hashKeyRange().startingHashKey())
                        .data(SdkBytes.fromUtf8String("{\"round\":" + round + ",\"i\":" + i + "}")).build());
            }
        }
        Set<String> sequences = new HashSet<>();
        kinesis.putRecords(r -> r.streamName(streamName).records(entries)).records()
                .forEach(r -> sequences.add(r.sequenceNumber()));
        assertEquals(entries.size(), sequences.size());
        return sequences;
    }

    private void awaitHanded(Set<String> sequences, int seconds) throws InterruptedException {
        long deadline = System.currentTimeMillis() + seconds * 1000L;
        while (true) {
            Set<String> seen = new HashSet<>();
            synchronized (handed) {
                handed.forEach(h -> seen.addAll(h.sequences()));
            }
            if (seen.containsAll(sequences)) {
                return;
            }
            assertTrue(System.currentTimeMillis() < deadline, (sequences.size() - sequences.stream()
                    .filter(seen::contains).count()) + " records not handed on in " + seconds + " s");
            Thread.sleep(200);
        }
    }

    @AfterEach
    void stop() {
        instances.forEach(Instance::crash);
        if (kinesis != null) {
            KinesisLocal.deleteStream(kinesis, streamName);
        }
    }
}
