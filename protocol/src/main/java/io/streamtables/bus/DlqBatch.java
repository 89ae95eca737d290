package io.streamtables.bus;

import java.util.List;

/**
 * commit → dlq: the rejects of one shard that a commit moved the watermark past, to be stored as one object. The
 * object key is derived from the first reject, so a replay writes the same object, with the same entries: only
 * committed cuts are published (docs/DESIGN.md, "Dead letters travel through the table").
 */
public record DlqBatch(int version, String channelArn, String objectKey, List<Reject> rejects) {

    public static final int VERSION = 1;

    public DlqBatch(String channelArn, String objectKey, List<Reject> rejects) {
        this(VERSION, channelArn, objectKey, rejects);
    }

    /** The sequence number of the batch's last reject: with the key, it names this version of the object. */
    public String lastSequence() {
        return rejects.isEmpty() ? null : rejects.get(rejects.size() - 1).sequenceNumber();
    }
}
