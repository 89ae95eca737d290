package io.streamtables.catalog;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/** What the service keeps in the tables it manages: the owner channel and the shard watermarks. */
public final class DeliveryTables {

    /** Table property naming the channel that created the table (SPEC S7). */
    public static final String CHANNEL_ARN_PROPERTY = "delivery.channel-arn";

    /** Snapshot summary property: JSON map shard id → last sequence number in the table or the DLQ. */
    public static final String WATERMARKS_PROPERTY = "delivery.watermarks";

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
        for (Snapshot s = table.currentSnapshot(); s != null;
                s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
            String json = s.summary().get(WATERMARKS_PROPERTY);
            if (json != null) {
                return parse(json);
            }
        }
        return new TreeMap<>();
    }

    public static Map<String, String> parse(String json) {
        try {
            return JSON.readValue(json, MAP);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Unreadable " + WATERMARKS_PROPERTY + " in the table's snapshot summary", e);
        }
    }

    public static String toJson(Map<String, String> watermarks) {
        try {
            return JSON.writeValueAsString(new TreeMap<>(watermarks));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
