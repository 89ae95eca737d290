package io.streamtables.maintenance;

import io.streamtables.tasks.Backoff;
import io.streamtables.watermarks.ForwardingOperations;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.exceptions.CommitFailedException;

/**
 * The commits of one maintenance run, fenced by its lease's epoch: each carries the epoch in the table property
 * {@value #EPOCH_PROPERTY}, and each checks, on the very metadata version it is swapped in on, that the table holds
 * no newer epoch. A run paused past its lease (a GC pause, a frozen VM) therefore commits nothing once the next
 * holder committed, as a zombie's delivery commit fails its watermark check. Iceberg applies the operations to the
 * refreshed table, with their own validations (a rewrite whose files a delivery or another rewrite removed fails);
 * a conflict with a delivery is retried with back-off, never holding the delivery up. The run's holder (this process)
 * is in {@value #HOLDER_PROPERTY}: two processes that got one epoch (instances that name themselves alike) cannot
 * both commit, the second finds the first's holder at its epoch and is fenced.
 */
final class FencedCommit {

    static final String EPOCH_PROPERTY = "delivery.maintenance.epoch";
    static final String HOLDER_PROPERTY = "delivery.maintenance.holder";
    static final int MAX_ATTEMPTS = 8;

    /** Another instance's run holds the table now. */
    static final class FencedException extends RuntimeException {
        FencedException(String message) {
            super(message);
        }
    }

    private final long epoch;
    private final String holder;
    private final long firstBackoffMillis;

    /** A run of one holder: the tests' runs, which share their epochs on purpose. */
    FencedCommit(long epoch, long firstBackoffMillis) {
        this(epoch, "", firstBackoffMillis);
    }

    FencedCommit(long epoch, String holder, long firstBackoffMillis) {
        this.epoch = epoch;
        this.holder = holder;
        this.firstBackoffMillis = firstBackoffMillis;
    }

    long epoch() {
        return epoch;
    }

    /** Takes the table for this run: later runs of older epochs are refused from here on. */
    void claim(Table table) {
        table.refresh();
        if (!Long.toString(epoch).equals(table.properties().get(EPOCH_PROPERTY))
                || !holder.equals(table.properties().getOrDefault(HOLDER_PROPERTY, holder))) {
            commit(table, transaction -> { });
        }
    }

    /** Whether another holder claimed the table at {@code epoch} (a process that named itself as this one does). */
    static boolean heldByAnother(Table table, long epoch, String holder) {
        String other = table.properties().get(HOLDER_PROPERTY);
        return inTable(table) == epoch && other != null && !other.equals(holder);
    }

    /** The epoch the table holds; 0 before any run claimed it (or when it is not a number: the next claim fixes it). */
    static long inTable(Table table) {
        String value = table.properties().get(EPOCH_PROPERTY);
        return value == null ? 0 : parse(value);
    }

    /** Commits the operations with the epoch in one transaction, retried on conflicts. */
    void commit(Table table, Consumer<Transaction> operations) {
        retrying(() -> {
            Transaction transaction = fenced(table).newTransaction();
            operations.accept(transaction);
            transaction.updateProperties().set(EPOCH_PROPERTY, Long.toString(epoch)).set(HOLDER_PROPERTY, holder)
                    .commit();
            transaction.commitTransaction();
        });
        table.refresh();
    }

    /** Runs a commit of the fenced table ({@link #fenced}) again while it conflicts, with back-off. */
    void retrying(Runnable commit) {
        Backoff backoff = new Backoff(firstBackoffMillis, Math.max(firstBackoffMillis, 10_000));
        for (int attempt = 1;; attempt++) {
            try {
                commit.run();
                return;
            } catch (CommitFailedException e) {
                if (attempt >= MAX_ATTEMPTS) {
                    throw e;
                }
            }
            try {
                Thread.sleep(backoff.next());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CommitFailedException("interrupted while waiting to retry a maintenance commit");
            }
        }
    }

    /** The table whose every commit checks the epoch on the version it replaces. */
    Table fenced(Table table) {
        table.refresh();
        check(table.properties());
        TableOperations ops = ((HasTableOperations) table).operations();
        return new BaseTable(new ForwardingOperations(ops) {
            @Override
            public void commit(TableMetadata base, TableMetadata metadata) {
                check(base.properties());
                super.commit(base, metadata);
            }
        }, table.name());
    }

    private void check(Map<String, String> properties) {
        String inTable = properties.get(EPOCH_PROPERTY);
        long held = inTable == null ? 0 : parse(inTable);
        if (held > epoch) {
            throw new FencedException("maintenance run " + epoch + " was overtaken by run " + inTable
                    + " of another instance");
        }
        String other = properties.get(HOLDER_PROPERTY);
        if (held == epoch && other != null && !other.equals(holder)) {
            throw new FencedException("maintenance run " + epoch + " is held by another process (" + other + ")");
        }
    }

    private static long parse(String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
