package io.streamtables.watermarks;

import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

/**
 * A table's operations pinned to one metadata version until a commit succeeds. Iceberg applies an append to the
 * table's latest metadata (SnapshotProducer.apply refreshes first, with or without commit retries), so an append
 * whose summary was computed from an older version would land on a newer one unchanged. Pinned, the append is
 * built on the very version the watermarks were read from, and the catalog's own compare-and-swap refuses it
 * (CommitFailedException) when another writer committed meanwhile.
 */
final class PinnedOperations implements TableOperations {

    private final TableOperations ops;
    private final TableMetadata base;
    private volatile boolean committed;

    PinnedOperations(TableOperations ops, TableMetadata base) {
        this.ops = ops;
        this.base = base;
    }

    @Override
    public TableMetadata current() {
        return committed ? ops.current() : base;
    }

    @Override
    public TableMetadata refresh() {
        return committed ? ops.refresh() : base;
    }

    @Override
    public void commit(TableMetadata from, TableMetadata metadata) {
        ops.commit(from, metadata);
        committed = true;
    }

    @Override
    public FileIO io() {
        return ops.io();
    }

    @Override
    public EncryptionManager encryption() {
        return ops.encryption();
    }

    @Override
    public String metadataFileLocation(String fileName) {
        return ops.metadataFileLocation(fileName);
    }

    @Override
    public LocationProvider locationProvider() {
        return ops.locationProvider();
    }

    @Override
    public TableOperations temp(TableMetadata uncommittedMetadata) {
        return ops.temp(uncommittedMetadata);
    }

    @Override
    public long newSnapshotId() {
        return ops.newSnapshotId();
    }

    @Override
    public boolean requireStrictCleanup() {
        return ops.requireStrictCleanup();
    }
}
