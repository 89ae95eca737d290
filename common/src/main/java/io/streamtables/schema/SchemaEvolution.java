package io.streamtables.schema;

import io.streamtables.bus.ErrorCode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * How a table's columns take rows of a schema version, by name at every level: the one home of the
 * compatibility rules. A change the table can make is one Iceberg's {@code UpdateSchema.unionByNameWith} makes with
 * column ids kept: a new optional field (nested too), int → long, float → double, a decimal of more digits, required
 * → optional (of fields, list elements and map values). Anything else never shifts a column: it is incompatible,
 * with the dead-letter code that names it. Stricter than Iceberg on purpose: it would add a new required field as an
 * optional column, and rows before it would then break the version's own rule.
 */
public final class SchemaEvolution {

    /**
     * One difference; {@code code} is null for a change the table can make. {@code pointer} is the field's JSON
     * pointer (list elements and map values written {@code *}), a dead letter's failing field; null for none.
     */
    public record Difference(ErrorCode code, String column, String pointer, String message) {

        public boolean compatible() {
            return code == null;
        }
    }

    /** Every difference; none when the table takes the rows as it is. */
    public record Comparison(List<Difference> differences) {

        /** The first change the table cannot make, or null. */
        public Difference incompatible() {
            return differences.stream().filter(d -> !d.compatible()).findFirst().orElse(null);
        }

        /** Whether the table must evolve (and can) to take the rows. */
        public boolean evolves() {
            return !differences.isEmpty() && incompatible() == null;
        }
    }

    private SchemaEvolution() {
    }

    /** Compares the table's current schema with the rows'; the partition sources are its spec's. */
    public static Comparison compare(Table table, Types.StructType rows) {
        return compare(table.schema(), rows, partitionSources(table.spec()));
    }

    /** The ids of the columns a partition spec reads. */
    public static Set<Integer> partitionSources(PartitionSpec spec) {
        Set<Integer> sources = new HashSet<>();
        spec.fields().forEach(f -> sources.add(f.sourceId()));
        return sources;
    }

    /** @param partitionSources the ids of the table's columns its partition spec reads */
    public static Comparison compare(Schema table, Types.StructType rows, Set<Integer> partitionSources) {
        List<Difference> differences = new ArrayList<>();
        struct(table.asStruct(), rows, "", "", partitionSources, differences);
        return new Comparison(differences);
    }

    private static void struct(Types.StructType table, Types.StructType rows, String path, String at,
            Set<Integer> partitioned, List<Difference> out) {
        for (Types.NestedField field : rows.fields()) {
            String name = path + field.name();
            String pointer = at + "/" + JsonPointers.token(field.name());
            Types.NestedField column = table.field(field.name());
            if (column == null) {
                out.add(field.isOptional()
                        ? new Difference(null, name, pointer, "it has no column " + name
                                + " for the schema's field of that name")
                        : new Difference(ErrorCode.INCOMPATIBLE_REQUIRED_FIELD, name, pointer, "it has no column " + name
                                + " for the schema's field of that name, which is required (a new required field)"));
                continue;
            }
            if (partitioned.contains(column.fieldId()) && ((!column.type().equals(field.type())
                    && !narrower(field.type(), column.type())) || (column.isRequired() && field.isOptional()))) {
                out.add(new Difference(ErrorCode.INCOMPATIBLE_PARTITION_CHANGE, name, pointer, "column " + name
                        + " is a partition source, " + describe(column) + ", the schema's field is " + describe(field)));
                continue;
            }
            if (column.isRequired() && field.isOptional()) {
                out.add(new Difference(null, name, pointer, "column " + name
                        + " is required, the schema's field is optional"));
            }
            type(column.type(), field.type(), name, pointer, partitioned, out);
        }
        for (Types.NestedField column : table.fields()) {
            if (column.isRequired() && rows.field(column.name()) == null) {
                out.add(new Difference(ErrorCode.INCOMPATIBLE_REQUIRED_FIELD, path + column.name(), at + "/"
                        + JsonPointers.token(column.name()), "column " + path + column.name()
                        + " is required and the schema has no field of that name"));
            }
        }
    }

    private static void type(Type column, Type field, String name, String pointer, Set<Integer> partitioned,
            List<Difference> out) {
        if (column.typeId() == Type.TypeID.STRUCT && field.typeId() == Type.TypeID.STRUCT) {
            struct(column.asStructType(), field.asStructType(), name + ".", pointer, partitioned, out);
        } else if (column.typeId() == Type.TypeID.LIST && field.typeId() == Type.TypeID.LIST) {
            if (column.asListType().isElementRequired() && field.asListType().isElementOptional()) {
                out.add(new Difference(null, name, pointer, "column " + name
                        + " holds required elements, the schema's field allows nulls"));
            }
            type(column.asListType().elementType(), field.asListType().elementType(), name + ".element",
                    pointer + "/*", partitioned, out);
        } else if (column.typeId() == Type.TypeID.MAP && field.typeId() == Type.TypeID.MAP
                && column.asMapType().keyType().equals(field.asMapType().keyType())) {
            if (column.asMapType().isValueRequired() && field.asMapType().isValueOptional()) {
                out.add(new Difference(null, name, pointer, "column " + name
                        + " holds required values, the schema's field allows nulls"));
            }
            type(column.asMapType().valueType(), field.asMapType().valueType(), name + ".value", pointer + "/*",
                    partitioned, out);
        } else if (!column.equals(field) && !narrower(field, column)) {
            boolean widens = narrower(column, field);
            out.add(new Difference(widens ? null : ErrorCode.INCOMPATIBLE_TYPE_CHANGE, name, pointer, "column " + name
                    + " is " + column + ", the schema's field maps to " + field));
        }
    }

    /**
     * int within long, float within double, a decimal within one of more digits and the same scale: the wider
     * column holds the narrower field's values as they are (Iceberg's type promotions).
     */
    private static boolean narrower(Type a, Type b) {
        if (a.typeId() == Type.TypeID.DECIMAL && b.typeId() == Type.TypeID.DECIMAL) {
            Types.DecimalType x = (Types.DecimalType) a;
            Types.DecimalType y = (Types.DecimalType) b;
            return x.scale() == y.scale() && x.precision() < y.precision();
        }
        return (a.typeId() == Type.TypeID.INTEGER && b.typeId() == Type.TypeID.LONG)
                || (a.typeId() == Type.TypeID.FLOAT && b.typeId() == Type.TypeID.DOUBLE);
    }

    private static String describe(Types.NestedField f) {
        return (f.isOptional() ? "optional " : "required ") + f.type();
    }
}
