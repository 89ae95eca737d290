package io.streamtables.commit;

import static io.streamtables.commit.CommitFixture.MANIFESTS;
import static io.streamtables.commit.CommitFixture.SHARD;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.bus.DlqBatch;
import io.streamtables.bus.Reject;
import io.streamtables.bus.RowChunk;
import io.streamtables.bus.Sequences;
import io.streamtables.watermarks.ForwardingOperations;
import io.streamtables.watermarks.ZombieCommitException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableOperations;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dead letters reach the DLQ through the table, and only those of committed cuts: the DLQ holds exactly
 * the rejects the table's watermark passed, each once, whatever two instances of the commit stage do, and whenever
 * one of them crashes.
 *
 * <p>The DLQ here is a map of object keys to entries that a later write replaces, as S3 does; its first write can be
 * held until the other instance has committed, as a paused process or a slow bus holds it.
 */
class DeadLetterOutboxTest {

    @TempDir
    Path dir;

    private CommitFixture f;
    private final Dlq dlq = new Dlq();

    @BeforeEach
    void setUp() {
        f = new CommitFixture(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    /** The DLQ bucket: object key → the entries of its last write. */
    static final class Dlq {
        final Map<String, List<String>> objects = new ConcurrentHashMap<>();
        final CountDownLatch firstArrived = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        private boolean holdFirst;
        private volatile RuntimeException failure;

        void store(List<DlqBatch> batches) {
            if (failure != null) {
                throw failure;
            }
            boolean held;
            synchronized (this) {
                held = holdFirst;
                holdFirst = false;
            }
            if (held) {
                firstArrived.countDown();
                await(release);
            }
            batches.forEach(b -> objects.put(b.objectKey(), b.rejects().stream().map(Reject::sequenceNumber).toList()));
        }

        /** All entries, in key order: a reject stored twice shows twice. */
        List<String> entries() {
            List<String> all = new ArrayList<>();
            new TreeMap<>(objects).values().forEach(all::addAll);
            all.sort(Sequences.ORDER);
            return all;
        }
    }

    @Test
    void aZombiesDeadLettersNeverReplaceTheCommittedOnes() throws Exception {
        ChannelDelivery zombie = delivery();
        ChannelDelivery owner = delivery();
        RowChunk first = chunk(null, 1, 10, 5);
        RowChunk second = chunk("10", 11, 20, 15);
        zombie.append(first);
        zombie.cut();
        owner.append(first);
        owner.append(second);
        owner.cut();

        dlq.holdFirst = true;
        Thread paused = new Thread(() -> commitOrDrop(zombie));
        paused.start();
        assertTrue(dlq.firstArrived.await(30, TimeUnit.SECONDS) || !paused.isAlive(), "the zombie never reached the DLQ");
        commitOrDrop(owner);
        dlq.release.countDown();
        paused.join(30_000);

        assertEquals(committedRejects(), dlq.entries(), "dead letters, against the table's watermark "
                + f.watermarks() + "; objects " + dlq.objects);

        // whichever instance lost takes the table's watermark and delivers the rest: each reject once
        ChannelDelivery next = f.watermarks().get(SHARD).equals("10") ? owner : zombie;
        next.append(second);
        next.cut();
        commitOrDrop(next);
        assertEquals(List.of("5", "15"), dlq.entries(), "objects " + dlq.objects);
        assertEquals(Map.of(SHARD, "20"), f.watermarks());
        assertEquals(LongStream.rangeClosed(1, 20).filter(i -> i != 5 && i != 15).boxed().toList(), f.ids());
    }

    /**
     * A cut that waited long to commit (a catalog outage) and whose data file the orphan cleanup removed meanwhile is
     * dropped, not committed with a missing file; its records are read again and land once.
     */
    @Test
    void aLongPendingCutWhoseFileWasRemovedIsReadAgain() {
        AtomicLong now = new AtomicLong(System.currentTimeMillis());
        ChannelDelivery d = new ChannelDelivery(f.channel, f.catalog.loadTable(f.channel.table()), f.buffer(),
                dlq::store, MANIFESTS, now::get);
        d.append(chunk(null, 1, 10, 5));
        d.cut();
        now.addAndGet(ChannelDelivery.STALE_CUT_MS + 1);
        d.pending().files().forEach(file -> f.catalog.loadTable(f.channel.table()).io().deleteFile(file.location()));
        assertThrows(ChannelDelivery.CutFilesGoneException.class, d::commit);
        d.drop();
        assertEquals(Map.of(), f.watermarks(), "nothing committed");

        d.append(chunk(null, 1, 10, 5)); // read again
        d.cut();
        commitOrDrop(d);
        assertEquals(Map.of(SHARD, "10"), f.watermarks());
        assertEquals(LongStream.rangeClosed(1, 10).filter(i -> i != 5).boxed().toList(), f.ids());
    }

    /**
     * An instance crashes after its commit landed and before its dead letters reached the DLQ: the shard's next
     * writer (here after a restart) publishes them from the staged file before its own commit replaces the entry.
     */
    @Test
    void deadLettersCommittedByACrashedInstanceArePublishedByTheNextWriter() {
        ChannelDelivery crashed = delivery();
        crashed.append(chunk(null, 1, 10, 5));
        crashed.cut();
        dlq.failure = new IllegalStateException("the process died");
        crashed.commit();
        assertThrows(IllegalStateException.class, crashed::publish);
        assertEquals(Map.of(SHARD, "10"), f.watermarks());
        assertEquals(1, stagedFiles().size(), "the staged dead letters, named in the summary");
        dlq.failure = null;

        ChannelDelivery restarted = delivery();
        restarted.append(chunk("10", 11, 20, 15));
        restarted.cut();
        commitOrDrop(restarted);
        assertEquals(List.of("5", "15"), dlq.entries(), "objects " + dlq.objects);
        assertEquals(List.of(), stagedFiles(), "staged files left behind");
    }

    /** A writer that crashed after its commit, on a shard that receives nothing more: another instance's sweep. */
    @Test
    void anIdleChannelsStrandedDeadLettersArePublishedByTheSweep() {
        ChannelDelivery crashed = delivery();
        crashed.append(chunk(null, 1, 10, 5));
        crashed.cut();
        dlq.failure = new IllegalStateException("the process died");
        crashed.commit();
        dlq.failure = null;

        ChannelDelivery other = delivery();
        long now = System.currentTimeMillis();
        other.sweep(now + ChannelDelivery.SWEEP_MS);
        assertEquals(List.of(), dlq.entries(), "published at the first sight: its writer may only be slow");
        other.sweep(now + 2 * ChannelDelivery.SWEEP_MS);
        assertEquals(List.of("5"), dlq.entries(), "objects " + dlq.objects);
        assertEquals(List.of(), stagedFiles());
    }

    /**
     * The other instance commits right after the zombie staged its dead letters: the zombie's compare-and-set fails,
     * its staged file is deleted with its cut, and nothing of it reaches the DLQ.
     */
    @Test
    void aDroppedCutLeavesNoStagedFile() {
        ChannelDelivery owner = delivery();
        owner.append(chunk(null, 1, 12, 5));
        owner.cut();
        Table loaded = f.catalog.loadTable(f.channel.table());
        AfterStaging hook = new AfterStaging(((HasTableOperations) loaded).operations(), () -> commitOrDrop(owner));
        ChannelDelivery zombie = new ChannelDelivery(f.channel, new BaseTable(hook, loaded.name()), f.buffer(),
                dlq::store, MANIFESTS);
        zombie.append(chunk(null, 1, 10, 5));
        zombie.cut();
        commitOrDrop(zombie);

        assertTrue(hook.fired, "the owner did not commit after the zombie staged");
        assertEquals(List.of("5"), dlq.entries());
        assertEquals(Map.of(SHARD, "12"), f.watermarks());
        assertEquals(List.of(), stagedFiles());
    }

    /** A table's operations that let another writer commit right after a file of dead letters is named. */
    private static final class AfterStaging extends ForwardingOperations {
        private final Runnable other;
        boolean fired;

        AfterStaging(TableOperations ops, Runnable other) {
            super(ops);
            this.other = other;
        }

        @Override
        public String metadataFileLocation(String fileName) {
            if (fileName.startsWith("dead-letters-") && !fired) {
                fired = true;
                other.run();
            }
            return super.metadataFileLocation(fileName);
        }
    }

    private List<String> stagedFiles() {
        try (var files = java.nio.file.Files.walk(dir)) {
            return files.map(Path::toString).filter(p -> p.contains("dead-letters-")).toList();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private ChannelDelivery delivery() {
        return new ChannelDelivery(f.channel, f.catalog.loadTable(f.channel.table()), f.buffer(), dlq::store, MANIFESTS);
    }

    private static void commitOrDrop(ChannelDelivery d) {
        try {
            d.commit();
            d.publish();
        } catch (ZombieCommitException e) {
            d.drop();
        }
    }

    /** The rejects at or below the table's watermark: those the DLQ must hold. */
    private List<String> committedRejects() {
        String watermark = f.watermarks().get(SHARD);
        return List.of("5", "15").stream().filter(s -> Sequences.atOrBelow(s, watermark)).toList();
    }

    /** Records first..last of the shard, the one at {@code rejected} a reject. */
    private RowChunk chunk(String previous, long first, long last, long rejected) {
        List<RowChunk.Row> rows = new ArrayList<>();
        for (long s = first; s <= last; s++) {
            if (s != rejected) {
                rows.add(f.row(Long.toString(s), "2024-05-01T10:00:00Z"));
            }
        }
        return f.chunk(previous, rows, List.of(CommitFixture.reject(Long.toString(rejected), 1_714_557_600_000L + rejected)));
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
