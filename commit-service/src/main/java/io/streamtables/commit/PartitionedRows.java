package io.streamtables.commit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;

/**
 * A chunk's rows, each with its partition, found once per chunk: Iceberg's hour transform makes five
 * {@code java.time} objects for each value it maps (150 bytes), so the admission, the lanes and the writers take
 * the key found here rather than partition every row again. The rows of one partition share one key, a copy of its own that
 * the buffer keeps among its open partitions.
 */
record PartitionedRows(List<Record> rows, List<PartitionKey> keys) {

    static PartitionedRows of(List<Record> rows, PartitionSpec spec, Schema schema) {
        PartitionKey scratch = new PartitionKey(spec, schema);
        InternalRecordWrapper wrapper = new InternalRecordWrapper(schema.asStruct());
        Map<PartitionKey, PartitionKey> distinct = new HashMap<>();
        List<PartitionKey> keys = new ArrayList<>(rows.size());
        for (Record row : rows) {
            scratch.partition(wrapper.wrap(row));
            PartitionKey key = distinct.get(scratch);
            if (key == null) {
                key = scratch.copy();
                distinct.put(key, key);
            }
            keys.add(key);
        }
        return new PartitionedRows(rows, keys);
    }

    /** The partitions, in the order of their first rows. */
    Set<PartitionKey> partitions() {
        return new LinkedHashSet<>(keys);
    }

    /** The rows by partition, in the order of their first rows. */
    Map<PartitionKey, List<Record>> byPartition() {
        Map<PartitionKey, List<Record>> byPartition = new LinkedHashMap<>();
        for (int i = 0; i < rows.size(); i++) {
            byPartition.computeIfAbsent(keys.get(i), k -> new ArrayList<>()).add(rows.get(i));
        }
        return byPartition;
    }

    /** The rows split into {@code n} parts by their partitions' hashes: a partition's rows all in one part. */
    List<PartitionedRows> split(int n) {
        List<PartitionedRows> parts = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            parts.add(new PartitionedRows(new ArrayList<>(), new ArrayList<>()));
        }
        for (int i = 0; i < rows.size(); i++) {
            PartitionedRows part = parts.get(Math.floorMod(keys.get(i).hashCode(), n));
            part.rows.add(rows.get(i));
            part.keys.add(keys.get(i));
        }
        return parts;
    }

    boolean isEmpty() {
        return rows.isEmpty();
    }
}
