package io.streamtables.commit;

import io.streamtables.bus.DlqBatch;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;

/**
 * One cut of a channel's buffer, waiting to be committed: its data files, the dead-letter batches to store
 * first, and for each shard the watermark the table must still hold (compare-and-set) and the one it moves to.
 * {@code oldestMillis} is when the cut's buffer opened, {@code oldestArrivalMillis} the arrival of its oldest record.
 */
record PendingCommit(List<DataFile> files, List<DlqBatch> deadLetters, Map<String, String> expected,
        Map<String, String> advanced, long rows, long rejects, long oldestMillis, long oldestArrivalMillis) {

    boolean isEmpty() {
        return advanced.isEmpty();
    }
}
