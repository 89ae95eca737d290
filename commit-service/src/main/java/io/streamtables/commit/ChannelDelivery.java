package io.streamtables.commit;

import io.streamtables.bus.RowChunk;
import io.streamtables.channel.Channel;
import io.streamtables.schema.SchemaEvolution;
import io.streamtables.tasks.Backoff;
import io.streamtables.watermarks.ManifestWorkers;
import io.streamtables.watermarks.ShardWatermarks;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;

/**
 * One channel's delivery in this commit instance, and the one holder of its state: the open buffer, the cut being
 * committed, the dead letters of the last commit until they are in the DLQ ({@link DeadLetterOutbox}: only committed
 * cuts are published), and when the next attempt and the next evolution are due. {@link CommitService} drives it by
 * its transitions: {@link #append}; when {@link #due}: {@link #evolve} (or {@link #evolveFailed}), {@link #cut},
 * {@link #commit}, {@link #publish} and {@link #sweep}, then {@link #delivered} (or {@link #failed}); {@link #drop}
 * when the channel is deleted, suspended or shut down, or the cut is a zombie's.
 */
final class ChannelDelivery {

    /** How often a channel looks for dead letters another writer committed and did not publish. */
    static final long SWEEP_MS = 60_000;
    /** A cut pending this long checks that its files are still there before it commits (see {@link #commit}). */
    static final long STALE_CUT_MS = 60_000;

    private final Channel channel;
    /** The committer's own instance of the table, refreshed before each attempt. */
    private final Table table;
    private final ChannelBuffer buffer;
    private final ManifestWorkers manifests;
    private final DeadLetterOutbox outbox;
    private final LongSupplier clock;
    private PendingCommit pending;
    /** An attempt to commit {@link #pending} may have landed unseen by this instance (see {@link #drop}). */
    private boolean pendingMayHaveLanded;
    private long cutAtMillis;
    /** A committed cut whose dead letters are not in the DLQ yet. */
    private PendingCommit unpublished;
    private long sweptAt;
    private long retryAt;
    private final Backoff backoff = new Backoff(1_000, CommitService.MAX_BACKOFF_MS);
    /** Rows of a schema version the table must evolve to take, set by a chunk that waits for it. */
    private volatile Schema evolveTo;
    /** When a failed evolution is tried again. */
    private long evolveAt;
    private final Backoff evolveBackoff = new Backoff(1_000, CommitService.MAX_BACKOFF_MS);

    ChannelDelivery(Channel channel, Table table, ChannelBuffer buffer, DeadLetterOutbox.Dlq dlq,
            ManifestWorkers manifests) {
        this(channel, table, buffer, dlq, manifests, System::currentTimeMillis);
    }

    ChannelDelivery(Channel channel, Table table, ChannelBuffer buffer, DeadLetterOutbox.Dlq dlq,
            ManifestWorkers manifests, LongSupplier clock) {
        this.channel = channel;
        this.table = table;
        this.buffer = buffer;
        this.manifests = manifests;
        this.outbox = new DeadLetterOutbox(table, dlq);
        this.clock = clock;
        this.sweptAt = clock.getAsLong();
    }

    Channel channel() {
        return channel;
    }

    Table table() {
        return table;
    }

    /** The cut being committed; null between a commit and the next cut. */
    PendingCommit pending() {
        return pending;
    }

    /**
     * Whether a step has anything to do now: the channel's evolution, cut, commit, publication or sweep is due. Most
     * channels, most ticks, have nothing to do.
     */
    boolean due(long now, int freshnessSeconds) {
        return evolveDue(now) || cutDue(now, freshnessSeconds)
                || retryDue(now) && (pending != null || unpublished != null || sweepDue(now));
    }

    /**
     * Writes a chunk into the buffer.
     *
     * @throws ChannelBuffer.FullException when the buffer must be cut first
     * @throws ChannelBuffer.EvolutionNeededException when the table must evolve first: the evolution is then due
     */
    void append(RowChunk chunk) {
        try {
            buffer.append(chunk);
        } catch (ChannelBuffer.EvolutionNeededException e) {
            waitToEvolve(e.rows);
            throw e;
        }
    }

    /** A write failed half way: what the buffer holds is thrown away and read again. */
    void discard() {
        buffer.discard();
    }

    /** A chunk waits for the table to take rows of this schema. */
    void waitToEvolve(Schema rows) {
        evolveTo = rows;
    }

    boolean waitsToEvolve() {
        return evolveTo != null;
    }

    boolean evolveDue(long now) {
        return evolveTo != null && now >= evolveAt;
    }

    /**
     * The table takes the new columns and wider types of the schema version a chunk waits with
     * ({@link #evolveTo}) by Iceberg's {@code unionByNameWith} (column ids stay), before any row of that version is
     * written; the buffer then writes with the new schema. What the buffer holds is cut first, so that its files, of
     * the schema they were written with, commit on their own (one file per partition per commit, SPEC S5); while
     * the cut before is still pending, the evolution waits. What Iceberg refuses makes the version's rows dead letters.
     *
     * @return the changes made: none when another instance made them first, or the evolution waits
     */
    List<SchemaEvolution.Difference> evolve() {
        Schema rows = evolveTo;
        table.refresh();
        SchemaEvolution.Comparison change = SchemaEvolution.compare(table, rows.asStruct());
        List<SchemaEvolution.Difference> made = List.of();
        String refused = null;
        if (change.evolves()) {
            if (pending != null) {
                evolveBackoff.reset();
                return made; // the cut before commits first; the waiting chunk comes again
            }
            cut();
            try {
                table.updateSchema().unionByNameWith(rows).commit();
                made = change.differences();
            } catch (IllegalArgumentException | ValidationException e) {
                refused = "Iceberg refuses the change: " + e.getMessage();
            }
        }
        buffer.evolved(refused == null ? null : rows.asStruct(), refused);
        if (evolveTo == rows) {
            evolveTo = null;
        }
        evolveBackoff.reset();
        return made;
    }

    /**
     * The catalog did not take the evolution (down, a concurrent commit, no permission): cuts and commits go on, the
     * waiting chunks come again, and the evolution is tried again after the returned wait.
     */
    long evolveFailed() {
        long wait = evolveBackoff.next();
        evolveAt = clock.getAsLong() + wait;
        return wait;
    }

    /** Arrival of the oldest record held here, in the pending cut or the buffer; 0 when none. */
    long oldestWaiting() {
        long buffered = buffer.oldestArrivalMillis();
        PendingCommit cut = pending;
        long cutOldest = cut == null ? 0 : cut.oldestArrivalMillis();
        return buffered == 0 ? cutOldest : cutOldest == 0 ? buffered : Math.min(buffered, cutOldest);
    }

    /** Whether the buffer is to be cut now: its oldest record waited the freshness, or it is full. */
    boolean cutDue(long now, int freshnessSeconds) {
        return pending == null && buffer.due(now, freshnessSeconds);
    }

    /** Takes the buffer as the pending cut; false when it held nothing to commit. */
    boolean cut() {
        PendingCommit cut = buffer.cut();
        pending = cut.isEmpty() ? null : cut;
        pendingMayHaveLanded = false;
        cutAtMillis = clock.getAsLong();
        return pending != null;
    }

    /**
     * Commits the pending cut with its dead letters staged; {@link #publish} then takes them to the DLQ. Before, the
     * last commit's dead letters are published, and those of its shards that another writer committed and did not
     * publish: the commit replaces their entries in the summary.
     *
     * @return false when the table already held the cut (a retry after an unknown commit state)
     * @throws io.streamtables.watermarks.ZombieCommitException when the table moved past the cut's starting
     *     watermarks
     */
    boolean commit() {
        publish();
        PendingCommit cut = pending;
        table.refresh();
        ShardWatermarks.check(table, cut); // a zombie stages nothing
        outbox.publishStranded(ShardWatermarks.stagedDeadLetters(table, cut.streamArn()), cut.advanced().keySet());
        if (cut.needsStaging()) {
            cut = cut.staged(outbox.stage(cut.deadLetters()));
            pending = cut;
        }
        if (clock.getAsLong() - cutAtMillis > STALE_CUT_MS) {
            checkFilesExist(cut);
        }
        boolean committed;
        try {
            committed = ShardWatermarks.commit(table, cut, manifests);
        } catch (CommitStateUnknownException | Error e) { // an Error may strike once the catalog took the commit
            pendingMayHaveLanded = true;
            throw e;
        }
        buffer.committed(cut);
        pending = null;
        if (!cut.deadLetters().isEmpty()) {
            unpublished = cut;
        }
        return committed;
    }

    /**
     * A cut that could not commit for long (a catalog outage) may have had its files taken by the table maintenance's
     * orphan cleanup, which cannot tell them from a crashed commit's once older than its threshold: committing it
     * then would reference missing files. It is dropped instead, and its records read again.
     */
    private void checkFilesExist(PendingCommit cut) {
        for (org.apache.iceberg.DataFile f : cut.files()) {
            if (!table.io().newInputFile(f.location()).exists()) {
                throw new CutFilesGoneException("the cut pending since " + java.time.Instant.ofEpochMilli(cutAtMillis)
                        + " lost its data file " + f.location() + " (removed as an orphan? keep "
                        + "delivery.maintenance.orphan-age far above the longest delivery outage); its records are "
                        + "read again");
            }
        }
    }

    /** The pending cut's files are gone: it must be dropped and its records read again. */
    static final class CutFilesGoneException extends IllegalStateException {
        CutFilesGoneException(String message) {
            super(message);
        }
    }

    /** Publishes the dead letters of the last commit, if they are not in the DLQ yet. */
    void publish() {
        PendingCommit cut = unpublished;
        if (cut != null) {
            try {
                outbox.publish(cut.deadLetterFile(), cut.deadLetters());
            } catch (DeadLetterOutbox.DeadLettersRefusedException e) {
                throw new DeadLetterOutbox.DeadLettersRefusedException(e.getMessage() + "; the dead letters of the "
                        + "last commit are kept in " + cut.deadLetterFile());
            }
            unpublished = null;
        }
    }

    /** Nothing of the channel waits to be committed or published. */
    boolean settled() {
        return pending == null && unpublished == null;
    }

    /**
     * Shutdown's last steps: {@code deliver} (the service's commit and publication of this delivery) again, after each
     * failure's wait, until nothing waits, the channel is gone ({@code kept} false) or the next wait would pass the
     * deadline. The caller then drops what is left ({@link #drop}).
     *
     * @return whether nothing was left waiting to be committed
     */
    boolean finish(long deadline, BooleanSupplier kept, Runnable deliver) throws InterruptedException {
        while (!settled() && kept.getAsBoolean() && clock.getAsLong() + retryBound() < deadline) {
            deliver.run();
            if (!settled()) {
                Thread.sleep(Math.max(CommitService.TICK_MS, retryAt - clock.getAsLong()));
            }
        }
        return pending == null;
    }

    private boolean sweepDue(long now) {
        return unpublished == null && now - sweptAt >= SWEEP_MS;
    }

    /** Once a minute: publishes what another writer committed and left unpublished for a minute (it crashed). */
    void sweep(long now) {
        if (sweepDue(now)) {
            sweptAt = now;
            outbox.sweep();
        }
    }

    boolean retryDue(long now) {
        return now >= retryAt;
    }

    /** The longest wait before the next attempt, once attempts failed. */
    long retryBound() {
        return backoff.bound();
    }

    long retryAt() {
        return retryAt;
    }

    /** An attempt to deliver succeeded: the next failure waits the least again. */
    void delivered() {
        backoff.reset();
    }

    /** An attempt to deliver failed: the next waits the returned time, longer after each failure. */
    long failed() {
        long wait = backoff.next();
        retryAt = clock.getAsLong() + wait;
        return wait;
    }

    /**
     * Deletes the pending cut's files and everything buffered: the records are read again from the watermarks. A cut
     * that landed after all (an attempt whose outcome was unknown) keeps its files; its dead letters are published.
     * A cut that may have landed, which the table no longer shows (the shard's later cuts and an expiration took its
     * id), keeps its files and staged dead letters too, for the orphan cleanup: had it landed, the table references
     * the files, and its checkpoint named the staged file, which the shard's next writer or a sweep publishes; had
     * it not, they are orphans, and publishing them would put a zombie's dead letters in the DLQ.
     */
    void drop() {
        PendingCommit cut = pending;
        boolean mayHaveLanded = pendingMayHaveLanded;
        pending = null;
        pendingMayHaveLanded = false;
        if (cut != null) {
            table.refresh();
            if (ShardWatermarks.holds(table, cut.id())) {
                unpublished = cut.deadLetters().isEmpty() ? unpublished : cut;
            } else if (!mayHaveLanded) {
                cut.files().forEach(f -> table.io().deleteFile(f.location()));
                if (cut.deadLetterFile() != null) {
                    outbox.discard(cut.deadLetterFile());
                }
            }
        }
        buffer.discardAll();
    }
}
