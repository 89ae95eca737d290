package io.streamtables.catalog;

import io.streamtables.channel.Arn;
import io.streamtables.channel.Channel;
import io.streamtables.schema.SchemaEvolution;
import io.streamtables.watermarks.Checkpoint;
import java.util.List;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * The tables a channel may deliver to: the one it created (its ARN in a table property), partitioned as it created
 * it, or, when the channel accepts existing tables ({@link Channel#acceptsExistingTable}), one whose columns take its
 * schema by name and type, partitioned in any way. The delivery checkpoint they hold is
 * {@link io.streamtables.watermarks.ShardWatermarks}'s.
 */
public final class DeliveryTables {

    /** Table property naming the schema version (its registry id) the channel created the table from. */
    public static final String SCHEMA_VERSION_PROPERTY = "delivery.schema-version-id";
    /**
     * Table property of a table the channel did not create but delivers into: its ARN is then in
     * {@link Checkpoint#CHANNEL_ARN_PROPERTY} too (one channel per table, as the checkpoint is one per table), its
     * partition spec is the table's own, and its maintenance is its owner's.
     */
    public static final String ADOPTED_PROPERTY = "delivery.adopted";
    /**
     * Table property: the 12-digit account whose channels may adopt the table in a catalog that table buckets share
     * (set by whoever created the table); without it, such a table is nobody's to adopt.
     */
    public static final String OWNER_ACCOUNT_PROPERTY = "delivery.owner-account";

    private DeliveryTables() {
    }

    /**
     * Why the channel may not deliver into this existing table, or null: for a table it created, a partitioning
     * changed outside the service; for one it adopted, a column changed so that it can no longer take the schema's
     * rows; for another, that the channel does not accept existing tables, that the table is not its account's to
     * adopt, or that a column does not take the schema's rows as it is.
     *
     * @param sharedCatalog whether the table bucket's catalog is one that other buckets (other accounts') share: a
     *     table there is the channel's account's to adopt only if it says so ({@link #OWNER_ACCOUNT_PROPERTY}), and
     *     nothing about its columns is told to another account
     */
    public static String deliveryProblem(Table table, Channel channel, Schema rows, boolean sharedCatalog) {
        String owner = table.properties().get(Checkpoint.CHANNEL_ARN_PROPERTY);
        if (channel.arn().equals(owner)) {
            return adopted(table) ? incompatibleProblem(table, rows) : partitionProblem(table, channel.partitionSource());
        }
        if (owner == null && channel.acceptsExistingTable()) {
            return !sharedCatalog || channel.account().equals(table.properties().get(OWNER_ACCOUNT_PROPERTY))
                    ? acceptProblem(table, rows) : notAdoptableProblem(table, channel);
        }
        return notOwnedProblem(table, channel.arn());
    }

    /** Why a table of a shared catalog is not the channel's to adopt; nothing of the table's but its name. */
    private static String notAdoptableProblem(Table table, Channel channel) {
        return "Table " + table.name() + " already exists and was not created by this channel; its catalog is shared "
                + "by other table buckets, where a channel adopts only a table whose property " + OWNER_ACCOUNT_PROPERTY
                + " is its own account (" + channel.account() + "): choose another TableName, or have the table's "
                + "owner set that property";
    }

    /** Whether the channel delivers into a table it did not create ({@link #ADOPTED_PROPERTY}). */
    public static boolean adopted(Table table) {
        return "true".equals(table.properties().get(ADOPTED_PROPERTY));
    }

    /**
     * Whether the channel's table maintenance may touch the table: the channel created it. Not a table another
     * channel created (in a catalog several accounts share, possibly another account's), nor one the channel adopted
     * (its owner maintains it).
     */
    public static boolean maintainedBy(Table table, String channelArn) {
        return owned(table, channelArn) && !adopted(table);
    }

    /** Whether the channel created or adopted the table (its ARN in {@link Checkpoint#CHANNEL_ARN_PROPERTY}). */
    public static boolean owned(Table table, String channelArn) {
        return channelArn.equals(table.properties().get(Checkpoint.CHANNEL_ARN_PROPERTY));
    }

    /**
     * Why a channel may not write this table, or null: it was created by another channel or outside (SPEC S7). The
     * reason is the tenant's to read: it names the owning channel only when that is of the same account (in a
     * catalog several accounts' buckets share, another account's channel, ARN and account id are not its business).
     */
    public static String notOwnedProblem(Table table, String channelArn) {
        String owner = table.properties().get(Checkpoint.CHANNEL_ARN_PROPERTY);
        if (channelArn.equals(owner)) {
            return null;
        }
        return "Table " + table.name() + " already exists and was not created by this channel"
                + (owner == null ? "" : sameAccount(owner, channelArn) ? " (it belongs to " + owner + ")"
                        : " (another account's channel delivers into it)")
                + ": choose another TableName, or drop the table, then recreate the channel"
                + (owner == null ? ", or tag it " + Channel.EXISTING_TABLE_TAG + "=ACCEPT to deliver into it" : "");
    }

    private static boolean sameAccount(String owner, String channelArn) {
        try {
            return Arn.accountOf(owner).equals(Arn.accountOf(channelArn));
        } catch (IllegalArgumentException notAnArn) {
            return false;
        }
    }

    /**
     * Why an existing table cannot take rows of the schema as it is, naming the column, or null: every field of the
     * schema must be a column of the same name (at every level) and type, or a wider one (int → long, float →
     * double), and optional where the field is; the table's other columns must be optional (they stay null). Any
     * partition spec. The rules are {@link SchemaEvolution}'s.
     */
    public static String acceptProblem(Table table, Schema rows) {
        List<SchemaEvolution.Difference> differences = SchemaEvolution.compare(table, rows.asStruct()).differences();
        return problem(table, differences.isEmpty() ? null : differences.get(0));
    }

    /**
     * Why a table the channel adopted no longer takes rows of the schema, or null: a change it cannot make
     * ({@link SchemaEvolution}); one it can make is made when such rows come.
     */
    static String incompatibleProblem(Table table, Schema rows) {
        return problem(table, SchemaEvolution.compare(table, rows.asStruct()).incompatible());
    }

    private static String problem(Table table, SchemaEvolution.Difference difference) {
        return difference == null ? null
                : "Table " + table.name() + " cannot take the channel's records: " + difference.message();
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
