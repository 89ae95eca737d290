package io.streamtables.maintenance;

import io.streamtables.storage.IncompleteUploads;
import io.streamtables.watermarks.ShardWatermarks;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.jboss.logging.Logger;

/**
 * Deletes the files under the table's location that no snapshot and no metadata version references, once older
 * than {@code delivery.maintenance.orphan-age-ms} (3 days): the data files of a crashed or refused commit, manifests
 * of a failed one, a compaction's output that never landed. A commit in flight writes its files moments before it
 * lands, far younger than the threshold, so none of its files is touched; the staged dead letters the checkpoint
 * names are referenced too. Listing goes through the FileIO's prefix operations; a FileIO without them is skipped.
 * Only the table's own folder is listed (a {@code write.data.path} elsewhere may be shared with other tables).
 * In S3, the multipart uploads under the table's folder started before the same threshold and never completed (a
 * large file's writer that crashed) are aborted.
 */
final class OrphanCleanup {

    private static final Logger LOG = Logger.getLogger(OrphanCleanup.class);

    private OrphanCleanup() {
    }

    /** What was done: the files deleted, the incomplete uploads aborted, whether the FileIO could list at all. */
    record Result(int removed, long bytes, int uploadsAborted, boolean listed) {
    }

    /**
     * @param stillHeld asked once before deleting: a run that lost its lease deletes nothing
     * @throws IllegalStateException when the listing cannot be trusted: it does not show the table's current
     *     metadata file (the locations are spelt differently), or another table keeps files in the same folder
     */
    static Result clean(Table table, MaintenanceSettings settings, long nowMillis, Runnable stillHeld,
            SnapshotFiles reached) {
        FileIO io = table.io();
        if (!(io instanceof SupportsPrefixOperations prefixes)) {
            return new Result(0, 0, 0, false);
        }
        long cutoff = nowMillis - settings.orphanAgeMillis();
        table.refresh();
        TableMetadata metadata = ((HasTableOperations) table).operations().current();
        Set<String> referenced = referenced(table, reached);
        String root = folder(table.location());
        String current = normalized(metadata.metadataFileLocation());
        boolean currentListed = false;
        List<String> orphans = new ArrayList<>();
        long bytes = 0;
        for (FileInfo file : prefixes.listPrefix(root)) {
            String location = normalized(file.location());
            currentListed |= location.equals(current);
            if (referenced.contains(location)) {
                continue;
            }
            if (location.endsWith(".metadata.json")) {
                checkOurs(table, metadata, file.location());
            }
            if (file.createdAtMillis() < cutoff) {
                LOG.debugf("Orphan of %s: %s (%d bytes, written %s)", table.name(), file.location(), file.size(),
                        Instant.ofEpochMilli(file.createdAtMillis()));
                orphans.add(file.location());
                bytes += file.size();
            }
        }
        if (!currentListed) {
            throw new IllegalStateException("listing " + root + " does not show the table's current metadata file "
                    + metadata.metadataFileLocation() + "; orphan cleanup skipped");
        }
        stillHeld.run();
        delete(io, orphans);
        int aborted = 0;
        String[] bucketAndKey = IncompleteUploads.bucketAndKey(root);
        if (io instanceof S3FileIO s3 && bucketAndKey != null) {
            aborted = IncompleteUploads.abort(s3.client(root), bucketAndKey[0], bucketAndKey[1],
                    Instant.ofEpochMilli(cutoff));
        }
        return new Result(orphans.size(), bytes, aborted, true);
    }

    /**
     * A metadata file no version of this table lists is a failed commit's, unless another table wrote it: a table
     * dropped from the catalog (or renamed) and created again under the same name gets the same folder, and each
     * would take the other's files for orphans. Another table's metadata without snapshots holds no data: that is
     * what an instance that lost the race to create the table leaves, an orphan like any other.
     */
    private static void checkOurs(Table table, TableMetadata metadata, String location) {
        TableMetadata other;
        try {
            other = org.apache.iceberg.TableMetadataParser.read(table.io(), location);
        } catch (RuntimeException unreadable) {
            return; // half written by a crashed commit: an orphan like any other
        }
        String uuid = other.uuid();
        if (uuid != null && !uuid.equals(metadata.uuid()) && !other.snapshots().isEmpty()) {
            throw new IllegalStateException("another table (" + uuid + ") keeps files under " + table.location()
                    + ", the folder of " + table.name() + "; orphan cleanup skipped: move one of the tables");
        }
    }

    /** Every file the table's metadata reaches, its locations without their scheme. */
    private static Set<String> referenced(Table table, SnapshotFiles reached) {
        TableMetadata metadata = ((HasTableOperations) table).operations().current();
        Set<String> files = new HashSet<>();
        reached.of(metadata).forEach(f -> files.add(normalized(f)));
        files.add(normalized(metadata.metadataFileLocation()));
        metadata.previousFiles().forEach(f -> files.add(normalized(f.file())));
        metadata.statisticsFiles().forEach(f -> files.add(normalized(f.path())));
        metadata.partitionStatisticsFiles().forEach(f -> files.add(normalized(f.path())));
        ShardWatermarks.stagedDeadLetterFiles(table).forEach(f -> files.add(normalized(f))); // of every stream
        return files;
    }

    /** With its slash, so that the files of a table {@code orders_old} beside {@code orders} are not listed. */
    private static String folder(String location) {
        return location.endsWith("/") ? location : location + "/";
    }

    static void delete(FileIO io, Collection<String> files) {
        if (files.isEmpty()) {
            return;
        }
        if (io instanceof SupportsBulkOperations bulk) {
            bulk.deleteFiles(files);
        } else {
            files.forEach(io::deleteFile);
        }
    }

    /** s3://b/k and s3a://b/k are one object; file:/x, file:///x and /x one file. */
    static String normalized(String location) {
        return location.replaceFirst("^[a-zA-Z][a-zA-Z0-9+.-]*:", "").replaceFirst("^/+", "/");
    }
}
