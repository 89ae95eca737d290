package io.streamtables.commit;

import static io.streamtables.commit.CommitFixture.MANIFESTS;
import static io.streamtables.commit.CommitFixture.SHARD;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.bus.DlqBatch;
import io.streamtables.bus.Reject;
import io.streamtables.bus.RowChunk;
import io.streamtables.bus.Sequences;
import io.streamtables.watermarks.ForwardingOperations;
import io.streamtables.watermarks.ShardWatermarks;
import io.streamtables.watermarks.ZombieCommitException;
import java.nio.file.Path;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.RESTException;
import org.apache.iceberg.jdbc.UncheckedSQLException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Dropping a pending cut deletes its files only when it surely did not land. A cut whose commit may have landed
 * unseen keeps them even once the table no longer shows it (the shard moved on past the cut ids it keeps, and the
 * snapshot holding it expired): deleting them left the table naming missing files.
 */
class ChannelDeliveryDropTest {

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

    /** How a catalog's answer to a commit it applied is lost. */
    enum LostAnswer {
        /** A REST catalog's 500, 502, 503 or 504 to the commit. */
        ICEBERG_UNKNOWN {
            @Override
            RuntimeException failure() {
                return new CommitStateUnknownException(new RuntimeException("Service failed: 504: gateway timeout"));
            }
        },
        /** How a JDBC catalog reports a connection lost during the commit's update. */
        JDBC_CONNECTION_LOST {
            @Override
            RuntimeException failure() {
                return new UncheckedSQLException(new SQLTransientConnectionException("connection reset"),
                        "Database Connection failed");
            }
        },
        /** How a REST catalog's client reports an I/O error (a read timeout) on the commit's request. */
        REST_IO_ERROR {
            @Override
            RuntimeException failure() {
                return new RESTException(new java.net.SocketTimeoutException("Read timed out"),
                        "Error occurred while processing %s request", "POST");
            }
        };

        abstract RuntimeException failure();
    }

    @ParameterizedTest
    @EnumSource(LostAnswer.class)
    void aCutThatLandedUnseenKeepsItsFilesOnceTheTableNoLongerShowsIt(LostAnswer lost) {
        Catalog catalog = catalog();
        ChannelDelivery writer = delivery(catalog);
        writer.append(chunk(null, 1, 10, 5));
        writer.cut();
        catalog.answers.add(apply -> {
            apply.run();
            catalog.reachable = false; // and stays out of reach for the rest of this try
            throw lost.failure();
        });
        assertThrows(RuntimeException.class, writer::commit);
        assertEquals(Map.of(SHARD, "10"), f.watermarks(), "the commit landed");
        PendingCommit cut = writer.pending();
        assertNotNull(cut.deadLetterFile());

        // the shard's next owner delivers more cuts than the table keeps ids of, and the snapshot of the cut expires
        ChannelDelivery owner = f.delivery(f.channel, dlq::store);
        for (long first = 11; first <= 41; first += 10) {
            owner.append(chunk(String.valueOf(first - 1), first, first + 9, first + 4));
            owner.cut();
            owner.commit();
            owner.publish();
        }
        f.table.refresh();
        f.table.expireSnapshots().expireOlderThan(System.currentTimeMillis() + 1).retainLast(1).commit();
        f.table.refresh();
        assertFalse(ShardWatermarks.holds(f.table, cut.id()), "the table still shows the cut");

        catalog.reachable = true;
        assertThrows(ZombieCommitException.class, writer::commit);
        writer.drop();

        List<Long> ids = assertDoesNotThrow(f::ids, "the table must read");
        assertEquals(LongStream.rangeClosed(1, 50).filter(i -> i % 10 != 5).boxed().toList(), ids);
        assertEquals(List.of(), missing(cut), "data files the table references");
        assertEquals(List.of("5", "15", "25", "35", "45"), dlq.entries(), "each batch stored once: " + dlq.stored);
        assertFalse(exists(cut.deadLetterFile()), "published by the shard's next writer, which deletes it");
    }

    /**
     * A cut whose commit attempt had an unknown outcome and landed, dropped at shutdown or as a zombie: its files are
     * the table's and stay, and its dead letters are published.
     */
    @Test
    void droppingALandedCutKeepsItsFilesAndPublishesItsDeadLetters() {
        Catalog catalog = catalog();
        ChannelDelivery writer = delivery(catalog);
        writer.append(chunk(null, 1, 10, 5));
        writer.cut();
        catalog.answers.add(apply -> {
            apply.run();
            throw LostAnswer.ICEBERG_UNKNOWN.failure();
        });
        assertThrows(CommitStateUnknownException.class, writer::commit);
        PendingCommit cut = writer.pending();
        writer.drop();
        writer.publish();

        assertEquals(LongStream.rangeClosed(1, 10).filter(i -> i != 5).boxed().toList(), f.ids(), "files kept");
        assertEquals(List.of(), missing(cut));
        assertEquals(List.of("5"), dlq.entries());
        assertFalse(exists(cut.deadLetterFile()), "the staged dead letters, published");
    }

    /**
     * The first attempt's answer is lost (the catalog may apply it any time), every later one is refused by the
     * catalog's compare-and-swap: the cut still may have landed, though the last answer was a refusal.
     */
    @Test
    void anUnknownAttemptFollowedByRefusalsKeepsTheCutsFiles() {
        Catalog catalog = catalog();
        ChannelDelivery writer = delivery(catalog);
        writer.append(chunk(null, 1, 10, 5));
        writer.cut();
        catalog.answers.add(apply -> {
            throw LostAnswer.ICEBERG_UNKNOWN.failure();
        });
        catalog.refuseByDefault = true;
        assertThrows(RuntimeException.class, writer::commit);
        PendingCommit cut = writer.pending();
        writer.drop();

        assertEquals(List.of(), missing(cut), "left for the orphan cleanup");
        assertTrue(exists(cut.deadLetterFile()), "left for the orphan cleanup");
        assertEquals(List.of(), dlq.entries(), "a cut not known to have landed publishes nothing");
        assertEquals(Map.of(), f.watermarks());
    }

    /** Every attempt refused by the catalog's compare-and-swap: the cut surely did not land and leaves nothing. */
    @Test
    void aCutRefusedOnEveryAttemptHasItsFilesDeleted() {
        Catalog catalog = catalog();
        ChannelDelivery writer = delivery(catalog);
        writer.append(chunk(null, 1, 10, 5));
        writer.cut();
        catalog.refuseByDefault = true;
        assertThrows(CommitFailedException.class, writer::commit);
        PendingCommit cut = writer.pending();
        writer.drop();

        assertEquals(List.of(), f.ids());
        assertEquals(locations(cut), missing(cut), "leaked");
        assertFalse(exists(cut.deadLetterFile()), "leaked: " + cut.deadLetterFile());
        assertEquals(List.of(), dlq.entries());
    }

    /** A zombie's cut, refused by the watermark check before any attempt, leaves nothing. */
    @Test
    void aZombiesCutHasItsFilesDeleted() {
        ChannelDelivery zombie = delivery(catalog());
        zombie.append(chunk(null, 1, 10, 5));
        zombie.cut();
        ChannelDelivery owner = f.delivery(f.channel, dlq::store);
        owner.append(chunk(null, 1, 12, 5));
        owner.cut();
        owner.commit();
        owner.publish();

        PendingCommit cut = zombie.pending();
        assertThrows(ZombieCommitException.class, zombie::commit);
        zombie.drop();

        assertEquals(LongStream.rangeClosed(1, 12).filter(i -> i != 5).boxed().toList(), f.ids());
        assertEquals(locations(cut), missing(cut), "leaked");
        assertEquals(List.of("5"), dlq.entries());
    }

    /**
     * The catalog as one writer reaches it: each commit is answered by the next scripted answer (given the commit to
     * apply), then applied, or refused by the compare-and-swap once {@link #refuseByDefault}; out of reach, it fails
     * every read.
     */
    private static final class Catalog extends ForwardingOperations {
        interface Answer {
            void commit(Runnable apply);
        }

        final Deque<Answer> answers = new ArrayDeque<>();
        volatile boolean reachable = true;
        volatile boolean refuseByDefault;

        Catalog(TableOperations ops) {
            super(ops);
        }

        @Override
        public TableMetadata refresh() {
            if (!reachable) {
                throw new UncheckedSQLException(new SQLTransientConnectionException("connection refused"),
                        "Database Connection failed");
            }
            return super.refresh();
        }

        @Override
        public void commit(TableMetadata base, TableMetadata metadata) {
            Answer answer = answers.poll();
            if (answer != null) {
                answer.commit(() -> super.commit(base, metadata));
            } else if (refuseByDefault) {
                throw new CommitFailedException("another writer committed first");
            } else {
                super.commit(base, metadata);
            }
        }
    }

    private Catalog catalog() {
        return new Catalog(((HasTableOperations) f.catalog.loadTable(f.channel.table())).operations());
    }

    private ChannelDelivery delivery(Catalog catalog) {
        Table table = new BaseTable(catalog, f.table.name());
        return new ChannelDelivery(f.channel, table, f.buffer(), dlq::store, MANIFESTS);
    }

    private static List<String> locations(PendingCommit cut) {
        return cut.files().stream().map(DataFile::location).toList();
    }

    /** The cut's data files that are gone. */
    private List<String> missing(PendingCommit cut) {
        return locations(cut).stream().filter(location -> !exists(location)).toList();
    }

    private boolean exists(String location) {
        return f.table.io().newInputFile(location).exists();
    }

    /** The DLQ bucket: each store of a batch, and per object key the entries of its last write. */
    private static final class Dlq {
        final List<String> stored = new ArrayList<>();
        private final Map<String, List<String>> objects = new TreeMap<>();

        synchronized void store(List<DlqBatch> batches) {
            batches.forEach(b -> {
                stored.add(b.objectKey());
                objects.put(b.objectKey(), b.rejects().stream().map(Reject::sequenceNumber).toList());
            });
        }

        /** All entries in key order; a batch stored twice shows twice. */
        synchronized List<String> entries() {
            List<String> all = new ArrayList<>();
            stored.forEach(key -> all.addAll(objects.get(key)));
            all.sort(Sequences.ORDER);
            return all;
        }
    }

    /** Records first..last of the shard, the one at {@code rejected} a reject. */
    private RowChunk chunk(String previous, long first, long last, long rejected) {
        List<RowChunk.Row> rows = new ArrayList<>();
        for (long s = first; s <= last; s++) {
            if (s != rejected) {
                rows.add(f.row(Long.toString(s), "2024-05-01T10:00:00Z"));
            }
        }
        return f.chunk(previous, rows,
                List.of(CommitFixture.reject(Long.toString(rejected), 1_714_557_600_000L + rejected)));
    }
}
