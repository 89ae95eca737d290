package io.streamtables.bus;

import java.util.List;
import org.apache.iceberg.data.Record;

/** convert → commit: the chunk's records, each either converted to a row or rejected. */
public record RowChunk(int version, CommitToken token, List<Row> rows, List<Reject> rejects) {

    public static final int VERSION = 1;

    public RowChunk(CommitToken token, List<Row> rows, List<Reject> rejects) {
        this(VERSION, token, rows, rejects);
    }

    /** A converted record; the sequence number lets commit drop what the table already holds. */
    public record Row(String sequenceNumber, long arrivalMillis, Record value) {
    }
}
