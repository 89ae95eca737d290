package io.streamtables.catalog;

import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The tables a channel may deliver to: the one it created (its ARN in a table property), partitioned as it created
 * it. The delivery checkpoint they hold is {@link io.streamtables.watermarks.ShardWatermarks}'s.
 */
public final class DeliveryTables {

    /** Table property naming the channel that created the table (SPEC S7). */
    public static final String CHANNEL_ARN_PROPERTY = "delivery.channel-arn";

    private DeliveryTables() {
    }

    /** Why a channel may not write this table, or null: it was created by another channel or outside (SPEC S7). */
    public static String notOwnedProblem(Table table, String channelArn) {
        String owner = table.properties().get(CHANNEL_ARN_PROPERTY);
        if (channelArn.equals(owner)) {
            return null;
        }
        return "Table " + table.name() + " already exists and was not created by this channel"
                + (owner == null ? "" : " (it belongs to " + owner + ")")
                + ": choose another TableName, or drop the table, then recreate the channel";
    }

    /**
     * Why the table's partitioning no longer takes the channel's rows, or null: it must be exactly
     * {@code hour(partitionSource)} on a timestamptz column, as the channel created it (SPEC C4, S8).
     */
    public static String partitionProblem(Table table, String partitionSource) {
        Types.NestedField column = table.schema().findField(partitionSource);
        if (column == null) {
            return "the partition column " + partitionSource + " of table " + table.name()
                    + " was dropped or renamed outside the service";
        }
        if (column.type().typeId() != Type.TypeID.TIMESTAMP || !((Types.TimestampType) column.type()).shouldAdjustToUTC()) {
            return "the partition column " + partitionSource + " of table " + table.name() + " is now " + column.type()
                    + ", not timestamptz";
        }
        var fields = table.spec().fields();
        PartitionField field = fields.size() == 1 ? fields.get(0) : null;
        if (field == null || field.sourceId() != column.fieldId() || !"hour".equals(field.transform().toString())) {
            return "table " + table.name() + " is now partitioned by " + fields + ", not hour(" + partitionSource
                    + ") as the channel created it";
        }
        return null;
    }
}
