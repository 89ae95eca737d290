package io.streamtables.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class PartitionedRowsTest {

    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.required(2, "ts", Types.TimestampType.withZone()));
    private static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA).hour("ts").build();
    private static final OffsetDateTime BASE = OffsetDateTime.of(2026, 12, 5, 10, 0, 0, 0, ZoneOffset.UTC);

    /** Row i in hour i % 3 from BASE. */
    private static List<Record> rows(int n) {
        List<Record> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Record row = GenericRecord.create(SCHEMA);
            row.setField("id", (long) i);
            row.setField("ts", BASE.plusHours(i % 3).plusMinutes(i));
            rows.add(row);
        }
        return rows;
    }

    private static int hour(PartitionKey key) {
        return key.get(0, Integer.class);
    }

    @Test
    void eachRowHasItsPartitionAndThoseOfOnePartitionShareOneKey() {
        List<Record> rows = rows(30);
        PartitionedRows partitioned = PartitionedRows.of(rows, SPEC, SCHEMA);
        int first = (int) (BASE.toEpochSecond() / 3600);
        for (int i = 0; i < rows.size(); i++) {
            PartitionKey key = partitioned.keys().get(i);
            assertEquals(first + i % 3, hour(key), "row " + i); // each key keeps its own value, no shared scratch
            assertSame(partitioned.keys().get(i % 3), key);
        }
        assertNotSame(partitioned.keys().get(0), partitioned.keys().get(1));
        assertEquals(List.of(first, first + 1, first + 2),
                partitioned.partitions().stream().map(PartitionedRowsTest::hour).toList());
    }

    @Test
    void byPartitionKeepsTheRowsOrder() {
        List<Record> rows = rows(9);
        Map<PartitionKey, List<Record>> byPartition = PartitionedRows.of(rows, SPEC, SCHEMA).byPartition();
        assertEquals(3, byPartition.size());
        List<List<Long>> ids = byPartition.values().stream()
                .map(group -> group.stream().map(r -> (Long) r.getField("id")).toList()).toList();
        assertEquals(List.of(List.of(0L, 3L, 6L), List.of(1L, 4L, 7L), List.of(2L, 5L, 8L)), ids);
    }

    @Test
    void aSplitKeepsEachPartitionInOnePart() {
        PartitionedRows partitioned = PartitionedRows.of(rows(60), SPEC, SCHEMA);
        List<PartitionedRows> parts = partitioned.split(2);
        assertEquals(2, parts.size());
        int total = 0;
        for (PartitionedRows part : parts) {
            total += part.rows().size();
            for (int i = 0; i < part.rows().size(); i++) {
                Record row = part.rows().get(i);
                int hour = hour(part.keys().get(i));
                long id = (Long) row.getField("id");
                assertTrue(i == 0 || (Long) part.rows().get(i - 1).getField("id") < id, "in the chunk's order");
                assertEquals((int) (BASE.toEpochSecond() / 3600) + id % 3, hour);
                for (PartitionedRows other : parts) {
                    assertTrue(other == part || !other.keys().contains(part.keys().get(i)), "a partition in two parts");
                }
            }
        }
        assertEquals(60, total);
    }
}
