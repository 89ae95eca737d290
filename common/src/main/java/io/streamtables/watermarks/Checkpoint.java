package io.streamtables.watermarks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * The delivery checkpoint's format: each delivery snapshot's summary holds the shard watermarks, the staged dead
 * letters per shard and the id of the cut it holds. It is read from the newest snapshot that carries watermarks, so a
 * snapshot written by table maintenance (which does not copy our summary) resets nothing.
 */
public final class Checkpoint {

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

    private Checkpoint() {
    }

    /** A property of the newest snapshot that carries watermarks; empty when there is none. */
    static Map<String, String> read(Table table, String property) {
        for (Snapshot s = table.currentSnapshot(); s != null;
                s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
            if (s.summary().containsKey(WATERMARKS_PROPERTY)) {
                String json = s.summary().get(property);
                return json == null ? new TreeMap<>() : parse(json);
            }
        }
        return new TreeMap<>();
    }

    /** True when a snapshot of the table's history holds the commit of that id. */
    static boolean holds(Table table, String commitId) {
        for (Snapshot s = table.currentSnapshot(); s != null;
                s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
            if (commitId.equals(s.summary().get(COMMIT_ID_PROPERTY))) {
                return true;
            }
        }
        return false;
    }

    public static Map<String, String> parse(String json) {
        try {
            return JSON.readValue(json, MAP);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Unreadable delivery checkpoint in the table's snapshot summary", e);
        }
    }

    static String toJson(Map<String, String> map) {
        try {
            return JSON.writeValueAsString(new TreeMap<>(map));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
