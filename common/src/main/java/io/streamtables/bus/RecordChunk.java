package io.streamtables.bus;

import java.util.List;

/** ingest → convert: consecutive records of one shard. */
public record RecordChunk(int version, CommitToken token, String streamArn,
        List<KinesisRecord> records) {

    public static final int VERSION = 1;

    public RecordChunk(CommitToken token, String streamArn, List<KinesisRecord> records) {
        this(VERSION, token, streamArn, records);
    }
}
