package io.streamtables.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
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

    /** The decoder's strings are Utf8 (issue 39): counted by their bytes, without decoding them into a String. */
    @Test
    void aStringCountsItsBytes() {
        assertEquals(6 + 4, BufferedBytes.estimate(row(new Utf8("ééé"))), "three two-byte characters");
        assertEquals(3 + 4, BufferedBytes.estimate(row("abc")));
        assertEquals(1, BufferedBytes.estimate(row(null)));
    }
}
