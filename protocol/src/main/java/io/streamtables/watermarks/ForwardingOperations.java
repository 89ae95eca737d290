package io.streamtables.watermarks;

import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.LocationProvider;

/** A table's operations, forwarded: a subclass overrides the calls it steps in at ({@link PinnedOperations}, tests). */
public class ForwardingOperations implements TableOperations {

    private final TableOperations ops;

    public ForwardingOperations(TableOperations ops) {
        this.ops = ops;
    }

    @Override
    public TableMetadata current() {
        return ops.current();
    }

    @Override
    public TableMetadata refresh() {
        return ops.refresh();
    }

    @Override
    public void commit(TableMetadata base, TableMetadata metadata) {
        ops.commit(base, metadata);
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
