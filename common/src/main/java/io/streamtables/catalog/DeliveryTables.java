package io.streamtables.catalog;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * What the service keeps in the tables it manages: the owner channel, the shard watermarks and, per shard, the
 * staged dead letters of its last commit (until they are in the DLQ).
 */
public final class DeliveryTables {

    /** Table property naming the channel that created the table (SPEC S7). */
    public static final String CHANNEL_ARN_PROPERTY = "delivery.channel-arn";

    /** Snapshot summary property: JSON map shard id → last sequence number in the table or the DLQ. */
    public static final String WATERMARKS_PROPERTY = "delivery.watermarks";

    /**
     * Snapshot summary property, in the same summary as the watermarks: JSON map shard id → the file in the table's
     * metadata folder holding the dead letters the shard's last commit with rejects moved its watermark past. The
     * file is deleted once they are in the DLQ; the entry stays until the shard's next such commit (one per shard).
     */
    public static final String DEAD_LETTERS_PROPERTY = "delivery.dead-letters";

    /**
     * Snapshot summary property: the id of the cut a delivery commit holds, so that an attempt whose outcome was
     * unknown is recognised when it landed, whatever was committed after it.
     */
    public static final String COMMIT_ID_PROPERTY = "delivery.commit-id";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<TreeMap<String, String>> MAP = new TypeReference<>() {
    };

    private DeliveryTables() {
    }

    /**
     * The committed watermarks: those of the newest snapshot that carries them, so that a snapshot written by
     * table maintenance (which does not copy our summary) does not reset progress.
     */
    public static Map<String, String> watermarks(Table table) {
        return checkpoint(table, WATERMARKS_PROPERTY);
    }

    /** The staged dead letters per shard, from the snapshot the watermarks are read from. */
    public static Map<String, String> deadLetters(Table table) {
        return checkpoint(table, DEAD_LETTERS_PROPERTY);
    }

    /** True when a snapshot of the table's history holds the commit of that id. */
    public static boolean holds(Table table, String commitId) {
        for (Snapshot s = table.currentSnapshot(); s != null;
                s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
            if (commitId.equals(s.summary().get(COMMIT_ID_PROPERTY))) {
                return true;
            }
        }
        return false;
    }

    private static Map<String, String> checkpoint(Table table, String property) {
        for (Snapshot s = table.currentSnapshot(); s != null;
                s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
            if (s.summary().containsKey(WATERMARKS_PROPERTY)) {
                String json = s.summary().get(property);
                return json == null ? new TreeMap<>() : parse(json);
            }
        }
        return new TreeMap<>();
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

    public static Map<String, String> parse(String json) {
        try {
            return JSON.readValue(json, MAP);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Unreadable delivery checkpoint in the table's snapshot summary", e);
        }
    }

    public static String toJson(Map<String, String> map) {
        try {
            return JSON.writeValueAsString(new TreeMap<>(map));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
