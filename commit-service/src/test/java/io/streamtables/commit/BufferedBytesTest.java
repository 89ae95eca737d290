package io.streamtables.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.avro.util.Utf8;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class BufferedBytesTest {

    private static final Schema SCHEMA = new Schema(Types.NestedField.optional(1, "s", Types.StringType.get()));

    private static List<Record> row(Object s) {
        Record r = GenericRecord.create(SCHEMA);
        r.setField("s", s);
        return List.of(r);
    }

    /** The decoder's strings are Utf8: counted by their bytes, without decoding them into a String. */
    @Test
    void aStringCountsItsBytes() {
        assertEquals(6 + 4, BufferedBytes.estimate(row(new Utf8("ééé"))), "three two-byte characters");
        assertEquals(3 + 4, BufferedBytes.estimate(row("abc")));
        assertEquals(1, BufferedBytes.estimate(row(null)));
    }

    /** Scalars count 8 bytes, a struct its fields, a list and a map 4 bytes and their elements. */
    @Test
    void nestedValuesCountTheirElements() {
        Schema inner = new Schema(Types.NestedField.optional(2, "n", Types.LongType.get()),
                Types.NestedField.optional(3, "b", Types.BooleanType.get()));
        Record struct = GenericRecord.create(inner);
        struct.setField("n", 7L);
        struct.setField("b", true);
        assertEquals(16, BufferedBytes.estimate(row(struct)), "a struct of two scalars");
        assertEquals(8, BufferedBytes.estimate(row(OffsetDateTime.of(2026, 12, 5, 0, 0, 0, 0, ZoneOffset.UTC))));
        assertEquals(4 + 8 + 1, BufferedBytes.estimate(row(Arrays.asList(1.5d, null))));
        assertEquals(4 + (1 + 4) + 8, BufferedBytes.estimate(row(Map.of(new Utf8("k"), 2))));
        assertEquals(2 + 4, BufferedBytes.estimate(row(ByteBuffer.wrap(new byte[] {1, 2}))));
    }
}
