package io.streamtables.maintenance;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.io.CloseableIterable;
import org.jboss.logging.Logger;

/**
 * Drops the hour partitions older than the table's {@code delivery.record-expiration-days} (off by default): a
 * metadata-only delete of whole files, the cutoff on an hour boundary so that no file is matched in part.
 */
final class RecordExpiration {

    private static final Logger LOG = Logger.getLogger(RecordExpiration.class);

    private RecordExpiration() {
    }

    /** @return the data files dropped */
    static int expire(Table table, FencedCommit fence, MaintenanceSettings settings, long nowMillis) {
        if (!settings.expiresRecords()) {
            return 0;
        }
        String source = hourSource(table);
        if (source == null) {
            return 0; // not partitioned by hour: nothing to drop as whole files
        }
        long cutoffHour = Math.floorDiv(nowMillis - settings.recordExpirationDays() * 86_400_000L, 3_600_000L);
        Expression older = Expressions.lessThan(source, cutoffHour * 3_600_000_000L); // microseconds
        table.refresh();
        if (table.currentSnapshot() == null || !any(table, older)) {
            return 0;
        }
        try {
            fence.commit(table, transaction -> transaction.newDelete().deleteFromRowFilter(older)
                    .set(Compaction.SUMMARY_PROPERTY, "record-expiration").commit());
        } catch (ValidationException e) {
            // a file with rows on both sides of the cutoff (written under another partition spec): not droppable
            // whole, so nothing is; the table's owner must delete those rows with an engine
            LOG.warnf("Record expiration of %s skipped: %s", table.name(), e.getMessage());
            return 0;
        }
        for (Snapshot s = table.currentSnapshot(); s != null; s = s.parentId() == null ? null
                : table.snapshot(s.parentId())) {
            if ("record-expiration".equals(s.summary().get(Compaction.SUMMARY_PROPERTY))) {
                return Integer.parseInt(s.summary().getOrDefault(SnapshotSummary.DELETED_FILES_PROP, "0"));
            }
        }
        return 0;
    }

    private static String hourSource(Table table) {
        for (PartitionField field : table.spec().fields()) {
            if ("hour".equals(field.transform().toString())) {
                return table.schema().findColumnName(field.sourceId());
            }
        }
        return null;
    }

    private static boolean any(Table table, Expression filter) {
        try (CloseableIterable<?> files = table.newScan().filter(filter).planFiles()) {
            return files.iterator().hasNext();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
