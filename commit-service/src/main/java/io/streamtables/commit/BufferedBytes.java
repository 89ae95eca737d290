package io.streamtables.commit;

import java.nio.ByteBuffer;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.avro.util.Utf8;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;

/**
 * The bytes the commit stage's open Parquet writers hold, over every channel, against one budget. A writer holds
 * {@link #WRITER_BYTES} of its own and keeps the compressed pages of its row group in memory until the file closes
 * (up to the row-group size, 128 MB, per open partition): large incompressible records over many hour partitions ran
 * a small heap out. The rows' sizes stand for the pages (an estimate from their values; compression only makes the
 * pages smaller), and a buffer that would pass the budget is cut instead, so more, smaller files, never an
 * OutOfMemoryError.
 */
final class BufferedBytes {

    /**
     * What one open Parquet writer holds before any page: measured, 100 open writers of a three-column table hold
     * 140 MB live (its buffers and its Hadoop configuration); a wider table's hold more, which its pages count.
     */
    static final long WRITER_BYTES = 3L << 19;

    private final long budget;
    private final AtomicLong held = new AtomicLong();

    BufferedBytes(long budget) {
        this.budget = budget;
    }

    /** A quarter of the heap: the stage's share when {@code delivery.commit.max-buffered-bytes} is not set. */
    static BufferedBytes quarterOfHeap() {
        return new BufferedBytes(Runtime.getRuntime().maxMemory() / 4);
    }

    long held() {
        return held.get();
    }

    /** Whether {@code bytes} more fit in what is left now. */
    boolean fits(long bytes) {
        return held.get() + bytes <= budget;
    }

    /** Takes {@code bytes}; admission checked they {@link #fits}, or that the buffer must take them to move at all. */
    void take(long bytes) {
        held.addAndGet(bytes);
    }

    void give(long bytes) {
        held.addAndGet(-bytes);
    }

    /** About what the rows' values take in a column store: strings and binaries by their length, 8 bytes a scalar. */
    static long estimate(List<Record> rows) {
        long total = 0;
        for (Record row : rows) {
            total += estimate((Object) row);
        }
        return total;
    }

    /**
     * Every value of every row passes here: the common ones are told by their classes first, since a test against an
     * interface that fails (a {@code Long} against {@code CharSequence}, {@code Record}, {@code Collection},
     * {@code Map} in turn) searches the value's interfaces each time.
     */
    private static long estimate(Object value) {
        if (value == null) {
            return 1;
        } else if (value instanceof Utf8 s) {
            return s.getByteLength() + 4; // its length() decodes it into a String
        } else if (value instanceof Number || value instanceof Boolean || value instanceof OffsetDateTime
                || value instanceof LocalDateTime) {
            return 8;
        } else if (value instanceof GenericRecord r) {
            return fields(r);
        } else if (value instanceof CharSequence s) {
            return s.length() + 4;
        } else if (value instanceof ByteBuffer b) {
            return b.remaining() + 4;
        } else if (value instanceof byte[] b) {
            return b.length + 4;
        } else if (value instanceof Record r) {
            return fields(r);
        } else if (value instanceof Collection<?> c) {
            long n = 4;
            for (Object element : c) {
                n += estimate(element);
            }
            return n;
        } else if (value instanceof Map<?, ?> m) {
            long n = 4;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                n += estimate(e.getKey()) + estimate(e.getValue());
            }
            return n;
        }
        return 8;
    }

    private static long fields(Record r) {
        long n = 0;
        for (int i = 0; i < r.size(); i++) {
            n += estimate(r.get(i));
        }
        return n;
    }
}
