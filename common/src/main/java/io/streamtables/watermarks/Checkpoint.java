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

    /**
     * The checkpoint as of a table's current snapshot: the watermarks and staged dead letters of the newest snapshot
     * that carries watermarks (empty when none does), and whether some snapshot holds the cut of that id.
     */
    record State(Map<String, String> watermarks, Map<String, String> deadLetters, boolean holdsCut) {
    }

    /** One walk down the table's history; {@code cutId} may be null when only the watermarks matter. */
    static State read(Table table, String cutId) {
        Map<String, String> watermarks = null;
        Map<String, String> deadLetters = null;
        for (Snapshot s = table.currentSnapshot(); s != null;
                s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
            if (watermarks == null && s.summary().containsKey(WATERMARKS_PROPERTY)) {
                watermarks = parse(s.summary().get(WATERMARKS_PROPERTY));
                deadLetters = parseOrEmpty(s.summary().get(DEAD_LETTERS_PROPERTY));
            }
            boolean holds = cutId != null && cutId.equals(s.summary().get(COMMIT_ID_PROPERTY));
            if (holds || (watermarks != null && cutId == null)) {
                return state(watermarks, deadLetters, holds);
            }
        }
        return state(watermarks, deadLetters, false);
    }

    private static State state(Map<String, String> watermarks, Map<String, String> deadLetters, boolean holdsCut) {
        return new State(watermarks == null ? new TreeMap<>() : watermarks,
                deadLetters == null ? new TreeMap<>() : deadLetters, holdsCut);
    }

    private static Map<String, String> parseOrEmpty(String json) {
        return json == null ? new TreeMap<>() : parse(json);
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
