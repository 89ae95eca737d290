package io.streamtables.commit;

import io.streamtables.bus.ErrorCode;
import io.streamtables.schema.SchemaEvolution;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * How the table takes rows of each schema met (one per schema version the records named): as they are, through a
 * {@link RowProjection} onto the schema rows are written with; after the table evolves; or not at all (dead letters
 * whose code names the change). Computed once per row schema, and again once the table's schema changed.
 */
final class SchemaFits {

    /** How the table takes rows of one schema: {@code toTable} when it does as it is, else why not. */
    record Fit(UnaryOperator<Record> toTable, SchemaEvolution.Comparison comparison) {
    }

    private final Table table;
    private final Map<Types.StructType, Fit> fits = new ConcurrentHashMap<>();
    /** Row schemas whose evolution Iceberg refused: dead letters for good. */
    private final Map<Types.StructType, Fit> refused = new ConcurrentHashMap<>();
    private volatile Schema writing;

    /** @param table the channel's table, whose partition spec says which columns a change may not touch */
    SchemaFits(Table table) {
        this.table = table;
    }

    /** Rows are written with this schema from now on: the fits met so far were the old one's. */
    void writeWith(Schema schema) {
        writing = schema;
        fits.clear();
    }

    /** The schema rows are written with. */
    Schema writing() {
        return writing;
    }

    Fit fit(Types.StructType rows) {
        Fit refusal = refused.get(rows);
        if (refusal != null) {
            return refusal;
        }
        return fits.computeIfAbsent(rows, struct -> {
            SchemaEvolution.Comparison c = SchemaEvolution.compare(writing, struct,
                    SchemaEvolution.partitionSources(table.spec()));
            return new Fit(c.differences().isEmpty() ? RowProjection.of(new Schema(struct.fields()), writing) : null, c);
        });
    }

    /** Iceberg refused to evolve the table to take rows of this schema: they are dead letters from now on. */
    void refuse(Types.StructType rows, String why) {
        refused.put(rows, new Fit(null, new SchemaEvolution.Comparison(List.of(
                new SchemaEvolution.Difference(ErrorCode.INCOMPATIBLE_TYPE_CHANGE, "", null, why)))));
    }
}
