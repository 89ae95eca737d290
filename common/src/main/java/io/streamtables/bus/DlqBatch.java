package io.streamtables.bus;

import java.util.List;

/**
 * commit → dlq: the rejects of one shard since its committed watermark, to be stored before the watermark
 * moves past them. The object key is derived from the first reject, so a replay after a crash rewrites the
 * same object instead of adding a second one.
 */
public record DlqBatch(int version, String channelArn, String objectKey, List<Reject> rejects) {

    public static final int VERSION = 1;

    public DlqBatch(String channelArn, String objectKey, List<Reject> rejects) {
        this(VERSION, channelArn, objectKey, rejects);
    }
}
