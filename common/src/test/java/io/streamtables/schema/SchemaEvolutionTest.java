package io.streamtables.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.bus.ErrorCode;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/** Which schema versions a table takes as it is, which it evolves to take, and which never. */
class SchemaEvolutionTest {

    /** The table: id int, ts timestamptz (its partition source, id 2), amount float, address {city}. */
    static final Schema TABLE = new Schema(
            Types.NestedField.required(1, "id", Types.IntegerType.get()),
            Types.NestedField.required(2, "ts", Types.TimestampType.withZone()),
            Types.NestedField.optional(3, "amount", Types.FloatType.get()),
            Types.NestedField.optional(4, "address", Types.StructType.of(
                    Types.NestedField.optional(5, "city", Types.StringType.get()))));
    static final Set<Integer> PARTITIONED = Set.of(2);

    static SchemaEvolution.Comparison compare(Types.NestedField... fields) {
        return SchemaEvolution.compare(TABLE, Types.StructType.of(fields), PARTITIONED);
    }

    static Types.NestedField id(int type) {
        return Types.NestedField.required(101, "id", type == 0 ? Types.IntegerType.get() : Types.LongType.get());
    }

    static final Types.NestedField TS = Types.NestedField.required(102, "ts", Types.TimestampType.withZone());

    @Test
    void theSameFieldsOrNarrowerOnesFitAsTheyAre() {
        assertTrue(compare(id(0), TS).differences().isEmpty(), "fewer optional fields: null");
        assertTrue(SchemaEvolution.compare(TABLE, TABLE.asStruct(), PARTITIONED).differences().isEmpty());
        SchemaEvolution.Comparison narrower = compare(id(0), TS,
                Types.NestedField.optional(103, "amount", Types.FloatType.get()));
        assertTrue(narrower.differences().isEmpty());
        assertFalse(narrower.evolves());
    }

    @Test
    void compatibleChangesEvolveTheTable() {
        assertEvolves(compare(id(0), TS, Types.NestedField.optional(110, "note", Types.StringType.get())),
                "it has no column note");
        assertEvolves(compare(id(0), TS, Types.NestedField.optional(104, "address", Types.StructType.of(
                Types.NestedField.optional(105, "city", Types.StringType.get()),
                Types.NestedField.optional(106, "zip", Types.StringType.get())))), "it has no column address.zip");
        assertEvolves(compare(id(1), TS), "column id is int, the schema's field maps to long");
        assertEvolves(compare(id(0), TS, Types.NestedField.optional(103, "amount", Types.DoubleType.get())),
                "column amount is float, the schema's field maps to double");
        assertEvolves(compare(Types.NestedField.optional(101, "id", Types.IntegerType.get()), TS),
                "column id is required, the schema's field is optional");
        Schema lists = new Schema(Types.NestedField.optional(1, "tags", Types.ListType.ofRequired(2,
                Types.StringType.get())), Types.NestedField.optional(3, "price", Types.DecimalType.of(10, 2)));
        assertEvolves(SchemaEvolution.compare(lists, Types.StructType.of(Types.NestedField.optional(11, "tags",
                Types.ListType.ofOptional(12, Types.StringType.get()))), Set.of()),
                "column tags holds required elements");
        assertEvolves(SchemaEvolution.compare(lists, Types.StructType.of(Types.NestedField.optional(13, "price",
                Types.DecimalType.of(12, 2))), Set.of()), "column price is decimal(10, 2)");
        assertTrue(SchemaEvolution.compare(lists, Types.StructType.of(Types.NestedField.optional(13, "price",
                Types.DecimalType.of(8, 2))), Set.of()).differences().isEmpty(), "fewer digits fit");
        assertEquals(ErrorCode.INCOMPATIBLE_TYPE_CHANGE, SchemaEvolution.compare(lists, Types.StructType.of(
                Types.NestedField.optional(13, "price", Types.DecimalType.of(12, 3))), Set.of()).incompatible().code(),
                "another scale");
    }

    @Test
    void incompatibleChangesNameTheirCode() {
        assertIncompatible(compare(id(0), TS, Types.NestedField.optional(103, "amount", Types.StringType.get())),
                ErrorCode.INCOMPATIBLE_TYPE_CHANGE, "/amount", "column amount is float, the schema's field maps to string");
        assertIncompatible(compare(id(0), TS, Types.NestedField.optional(104, "address", Types.StructType.of(
                Types.NestedField.optional(105, "city", Types.IntegerType.get())))),
                ErrorCode.INCOMPATIBLE_TYPE_CHANGE, "/address/city", "column address.city is string");
        assertIncompatible(compare(id(0), TS, Types.NestedField.required(110, "note", Types.StringType.get())),
                ErrorCode.INCOMPATIBLE_REQUIRED_FIELD, "/note", "which is required (a new required field)");
        assertIncompatible(compare(id(0), TS, Types.NestedField.optional(104, "address", Types.StructType.of(
                Types.NestedField.optional(105, "city", Types.StringType.get()),
                Types.NestedField.required(106, "valueDate", Types.DateType.get())))),
                ErrorCode.INCOMPATIBLE_REQUIRED_FIELD, "/address/valueDate", "it has no column address.valueDate");
        assertIncompatible(compare(TS), ErrorCode.INCOMPATIBLE_REQUIRED_FIELD, "/id",
                "column id is required and the schema has no field of that name");
        assertIncompatible(compare(id(0), Types.NestedField.required(102, "ts", Types.StringType.get())),
                ErrorCode.INCOMPATIBLE_PARTITION_CHANGE, "/ts", "column ts is a partition source");
        assertIncompatible(compare(id(0), Types.NestedField.optional(102, "ts", Types.TimestampType.withZone())),
                ErrorCode.INCOMPATIBLE_PARTITION_CHANGE, "/ts", "the schema's field is optional timestamptz");
        // one incompatible change among compatible ones: no evolution
        SchemaEvolution.Comparison mixed = compare(id(1), TS,
                Types.NestedField.optional(103, "amount", Types.StringType.get()));
        assertFalse(mixed.evolves());
        assertEquals(2, mixed.differences().size());
    }

    private static void assertEvolves(SchemaEvolution.Comparison c, String message) {
        assertTrue(c.evolves(), c.toString());
        assertNull(c.incompatible());
        assertTrue(c.differences().get(0).message().startsWith(message), c.differences().get(0).message());
    }

    private static void assertIncompatible(SchemaEvolution.Comparison c, ErrorCode code, String pointer,
            String message) {
        assertFalse(c.evolves(), c.toString());
        assertEquals(code, c.incompatible().code());
        assertEquals(pointer, c.incompatible().pointer());
        assertTrue(c.incompatible().message().contains(message), c.incompatible().message());
    }
}
