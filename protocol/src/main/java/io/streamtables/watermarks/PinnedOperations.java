package io.streamtables.watermarks;

import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;

/**
 * A table's operations pinned to one metadata version until a commit succeeds. Iceberg applies an append to the
 * table's latest metadata (SnapshotProducer.apply refreshes first, with or without commit retries), so an append
 * whose summary was computed from an older version would land on a newer one unchanged. Pinned, the append is
 * built on the very version the watermarks were read from, and the catalog's own compare-and-swap refuses it
 * (CommitFailedException) when another writer committed meanwhile.
 */
final class PinnedOperations extends ForwardingOperations {

    private final TableMetadata base;
    private volatile boolean committed;

    PinnedOperations(TableOperations ops, TableMetadata base) {
        super(ops);
        this.base = base;
    }

    @Override
    public TableMetadata current() {
        return committed ? super.current() : base;
    }

    @Override
    public TableMetadata refresh() {
        return committed ? super.refresh() : base;
    }

    @Override
    public void commit(TableMetadata from, TableMetadata metadata) {
        super.commit(from, metadata);
        committed = true;
    }
}
