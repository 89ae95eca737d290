package io.streamtables.commit;

import io.streamtables.bus.DlqBatch;
import io.streamtables.watermarks.ShardWatermarks;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.DataFile;

/**
 * One cut of a channel's buffer, waiting to be committed: the channel's ARN, the stream its records were read from,
 * its id (in the summary of the snapshot that holds it), its data files, its dead-letter batches (and the file they
 * are staged in, once they are: {@link DeadLetterOutbox}), and for each shard of the stream the watermark the table
 * must still hold (compare-and-set) and the one it moves to.
 * {@code oldestMillis} is when the cut's buffer opened, {@code oldestArrivalMillis} the arrival of its oldest record.
 */
record PendingCommit(String channelArn, String streamArn, String id, List<DataFile> files, List<DlqBatch> deadLetters,
        String deadLetterFile, Map<String, String> expected, Map<String, String> advanced, long rows, long rejects,
        long oldestMillis, long oldestArrivalMillis) implements ShardWatermarks.Cut {

    boolean isEmpty() {
        return advanced.isEmpty();
    }

    /** The cut, its dead letters staged in {@code file}. */
    PendingCommit staged(String file) {
        return new PendingCommit(channelArn, streamArn, id, files, deadLetters, file, expected, advanced, rows, rejects,
                oldestMillis, oldestArrivalMillis);
    }

    @Override
    public Map<String, String> stagedDeadLetters() {
        Map<String, String> staged = new HashMap<>();
        deadLetters.forEach(batch -> staged.put(batch.rejects().get(0).shardId(), deadLetterFile));
        return staged;
    }

    /** True when its dead letters must be staged before it is committed. */
    boolean needsStaging() {
        return !deadLetters.isEmpty() && deadLetterFile == null;
    }
}
