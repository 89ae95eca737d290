package io.streamtables.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.List;
import java.util.Map;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** Rows of the channel's schema rebuilt by name as rows of an existing table's, at every level. */
class RowProjectionTest {

    private static final Types.StructType DEVICE = device(10);
    private static final Schema ROWS = new Schema(
            Types.NestedField.required(1, "id", Types.IntegerType.get()),
            Types.NestedField.optional(2, "value", Types.FloatType.get()),
            Types.NestedField.optional(3, "device", DEVICE),
            Types.NestedField.optional(4, "readings", Types.ListType.ofOptional(12, device(40))),
            Types.NestedField.optional(5, "attrs", Types.MapType.ofOptional(13, 14, Types.StringType.get(),
                    device(50))));

    /** The same columns in another order, with widened types and a column of its own at two levels. */
    private static final Types.StructType THEIR_DEVICE = theirDevice(30);
    private static final Schema TABLE = new Schema(
            Types.NestedField.optional(20, "attrs", Types.MapType.ofOptional(33, 34, Types.StringType.get(),
                    theirDevice(60))),
            Types.NestedField.optional(21, "readings", Types.ListType.ofOptional(35, theirDevice(70))),
            Types.NestedField.optional(22, "region", Types.StringType.get()),
            Types.NestedField.optional(23, "device", THEIR_DEVICE),
            Types.NestedField.optional(24, "value", Types.DoubleType.get()),
            Types.NestedField.required(25, "id", Types.LongType.get()));

    private static Types.StructType device(int id) {
        return Types.StructType.of(Types.NestedField.optional(id, "model", Types.StringType.get()),
                Types.NestedField.optional(id + 1, "version", Types.IntegerType.get()));
    }

    private static Types.StructType theirDevice(int id) {
        return Types.StructType.of(Types.NestedField.optional(id, "version", Types.LongType.get()),
                Types.NestedField.optional(id + 1, "serial", Types.StringType.get()),
                Types.NestedField.optional(id + 2, "model", Types.StringType.get()));
    }

    @Test
    void rebuildsEveryLevelByNameAndWidens() {
        Record device = GenericRecord.create(DEVICE);
        device.setField("model", "m1");
        device.setField("version", 3);
        Record row = GenericRecord.create(ROWS);
        row.setField("id", 7);
        row.setField("value", 1.5f);
        row.setField("device", device);
        row.setField("readings", List.of(device));
        row.setField("attrs", Map.of("a", device));

        Record projected = RowProjection.of(ROWS, TABLE).apply(row);

        assertEquals(TABLE.asStruct(), projected.struct());
        assertEquals(7L, projected.getField("id"), "int widened to the table's long");
        assertEquals(1.5d, projected.getField("value"), "float widened to the table's double");
        assertEquals(null, projected.getField("region"), "a column of the table's own stays null");
        Record theirDevice = (Record) projected.getField("device");
        assertEquals(THEIR_DEVICE, theirDevice.struct());
        assertEquals("m1", theirDevice.getField("model"));
        assertEquals(3L, theirDevice.getField("version"));
        assertEquals(null, theirDevice.getField("serial"));
        Record element = (Record) ((List<?>) projected.getField("readings")).get(0);
        assertEquals(theirDevice(70), element.struct(), "list elements too");
        assertEquals(List.of(3L, "m1"), List.of(element.getField("version"), element.getField("model")));
        Record value = (Record) ((Map<?, ?>) projected.getField("attrs")).get("a");
        assertEquals(theirDevice(60), value.struct(), "map values too");
        assertEquals(List.of(3L, "m1"), List.of(value.getField("version"), value.getField("model")));
    }

    @Test
    void aTableOfTheSameColumnsTakesTheRowsAsTheyAre() {
        Record row = GenericRecord.create(ROWS);
        row.setField("id", 1);
        Schema sameByName = new Schema(ROWS.columns().stream().map(f -> Types.NestedField.of(f.fieldId() + 100,
                f.isOptional(), f.name(), f.type())).toList());
        assertSame(row, RowProjection.of(ROWS, sameByName).apply(row), "other ids, same names and order: as is");
        assertNotSame(row, RowProjection.of(ROWS, TABLE).apply(row));
    }
}
