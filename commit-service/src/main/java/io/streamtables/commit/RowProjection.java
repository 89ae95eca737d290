package io.streamtables.commit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Rows of the channel's schema as rows of an existing table's: by column name at every level, an int
 * widened to a long and a float to a double where the table's column is wider; the table's other columns are null.
 * {@link io.streamtables.catalog.DeliveryTables#acceptProblem} decides beforehand that the table takes them.
 */
final class RowProjection {

    /** The rows of a table the channel created: its columns are the schema's, in its order. */
    static final UnaryOperator<Record> IDENTITY = UnaryOperator.identity();

    private RowProjection() {
    }

    static UnaryOperator<Record> of(Schema rows, Schema table) {
        if (sameByName(rows.asStruct(), table.asStruct())) {
            return IDENTITY;
        }
        Types.StructType from = rows.asStruct();
        Types.StructType to = table.asStruct();
        return row -> struct(row, from, to);
    }

    private static Record struct(Record row, Types.StructType from, Types.StructType to) {
        Record out = GenericRecord.create(to);
        for (Types.NestedField field : to.fields()) {
            Types.NestedField source = from.field(field.name());
            if (source != null) {
                out.setField(field.name(), value(row.getField(source.name()), source.type(), field.type()));
            }
        }
        return out;
    }

    private static Object value(Object value, Type from, Type to) {
        if (value == null) {
            return null;
        }
        switch (to.typeId()) {
            case STRUCT:
                return struct((Record) value, from.asStructType(), to.asStructType());
            case LIST:
                List<Object> list = new ArrayList<>();
                for (Object element : (List<?>) value) {
                    list.add(value(element, from.asListType().elementType(), to.asListType().elementType()));
                }
                return list;
            case MAP:
                Map<Object, Object> map = new LinkedHashMap<>();
                ((Map<?, ?>) value).forEach((k, v) -> map.put(k, value(v, from.asMapType().valueType(),
                        to.asMapType().valueType())));
                return map;
            case LONG:
                return value instanceof Integer i ? Long.valueOf(i) : value;
            case DOUBLE:
                return value instanceof Float f ? Double.valueOf(f) : value;
            default:
                return value;
        }
    }

    /** The same names and types in the same order, at every level: positions line up, nothing to convert. */
    private static boolean sameByName(Type a, Type b) {
        if (a.typeId() != b.typeId()) {
            return false;
        }
        if (a.isPrimitiveType()) {
            return a.equals(b);
        }
        List<Types.NestedField> x = a.asNestedType().fields();
        List<Types.NestedField> y = b.asNestedType().fields();
        if (x.size() != y.size()) {
            return false;
        }
        for (int i = 0; i < x.size(); i++) {
            if (!x.get(i).name().equals(y.get(i).name()) || !sameByName(x.get(i).type(), y.get(i).type())) {
                return false;
            }
        }
        return true;
    }
}
