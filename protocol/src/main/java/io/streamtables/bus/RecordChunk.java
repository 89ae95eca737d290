package io.streamtables.bus;

import java.util.List;

/** ingest → convert: consecutive records of one shard (its stream in the token). */
public record RecordChunk(int version, CommitToken token, List<KinesisRecord> records) {

    public static final int VERSION = 1;

    public RecordChunk(CommitToken token, List<KinesisRecord> records) {
        this(VERSION, token, records);
    }
}
