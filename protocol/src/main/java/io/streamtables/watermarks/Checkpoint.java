package io.streamtables.watermarks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

/**
 * The delivery checkpoint's format: table properties, set in the same commit as the data, since maintenance (ours
 * or any engine's) never changes them, while it does expire and replace the snapshots whose summaries held the
 * checkpoint in earlier releases. Delivery snapshots still carry it in their summaries, as history and for those
 * releases; a table an earlier release committed to last is read from the summaries.
 *
 * <p>Keys: {@code <stream ARN>/<shard id>}. A channel deleted and created again under its name on another stream
 * delivers into the same table, and both streams' shards have the same ids; keyed by shard id alone, the second
 * stream was read after the first one's sequence numbers, which Kinesis does not find in it. A shard id holds no
 * {@code /} and a stream ARN always does ({@code arn:aws:kinesis:REGION:ACCOUNT:stream/NAME}), so a key splits at
 * its last {@code /}. Earlier releases keyed by shard id alone: such a key is read as the shard of the stream asked
 * for (the channel's: the one stream those releases knew) where that stream has no key of its own for the shard,
 * and the next commit writes it qualified by the committing cut's stream.
 */
public final class Checkpoint {

    /**
     * Table property naming the channel that created the table (SPEC S7): a cut of another channel may not write its
     * checkpoint.
     */
    public static final String CHANNEL_ARN_PROPERTY = "delivery.channel-arn";

    /** Table property: JSON map shard key → last sequence number in the table or the DLQ. */
    public static final String WATERMARKS_PROPERTY = "delivery.watermarks";

    /**
     * Table property: JSON map shard key → the file in the table's metadata folder holding the dead letters the
     * shard's last commit with rejects moved its watermark past. The file is deleted once they are in the DLQ; the
     * entry stays until the shard's next such commit (one per shard).
     */
    public static final String DEAD_LETTERS_PROPERTY = "delivery.dead-letters";

    /**
     * Table property: JSON map shard key → the ids of the last {@link #RECENT_CUTS} cuts that moved its watermark,
     * newest first, so that an attempt whose outcome was unknown is recognised when it landed, even after the
     * shard's new owner committed on top of it.
     */
    public static final String CUT_IDS_PROPERTY = "delivery.cut-ids";

    /**
     * Snapshot summary property: the id of the cut a delivery commit holds (which snapshots are deliveries). Its
     * summary also keeps a copy of the watermarks and staged dead letters after it, the delivery's history and
     * what earlier releases read.
     */
    public static final String COMMIT_ID_PROPERTY = "delivery.commit-id";

    static final int RECENT_CUTS = 3;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<TreeMap<String, String>> MAP = new TypeReference<>() {
    };
    private static final TypeReference<TreeMap<String, List<String>>> IDS = new TypeReference<>() {
    };

    private Checkpoint() {
    }

    /**
     * The checkpoint as of a table's metadata: watermarks, staged dead letters and recent cut ids, by shard key (an
     * earlier release's: by shard id).
     */
    record State(Map<String, String> watermarks, Map<String, String> deadLetters, Map<String, List<String>> cutIds) {

        boolean holds(String cutId) {
            return cutIds.values().stream().anyMatch(ids -> ids.contains(cutId));
        }

        /** The stream's watermarks, by shard id. */
        Map<String, String> watermarks(String streamArn) {
            return ofStream(watermarks, streamArn);
        }

        /** The stream's staged dead letters, by shard id. */
        Map<String, String> deadLetters(String streamArn) {
            return ofStream(deadLetters, streamArn);
        }

        /** Every staged file named, of every stream. */
        Set<String> deadLetterFiles() {
            return new TreeSet<>(deadLetters.values());
        }

        /** The table properties after the cut: what it moved merged into this state, every key qualified. */
        Map<String, String> after(ShardWatermarks.Cut cut) {
            String stream = cut.streamArn();
            Map<String, String> watermarks = qualified(this.watermarks, stream);
            cut.advanced().forEach((shard, watermark) -> watermarks.put(key(stream, shard), watermark));
            Map<String, String> deadLetters = qualified(this.deadLetters, stream);
            cut.stagedDeadLetters().forEach((shard, file) -> deadLetters.put(key(stream, shard), file));
            Map<String, List<String>> cutIds = qualified(this.cutIds, stream);
            cut.advanced().keySet().forEach(shard -> {
                List<String> ids = new ArrayList<>(List.of(cut.id()));
                ids.addAll(cutIds.getOrDefault(key(stream, shard), List.of()));
                cutIds.put(key(stream, shard), List.copyOf(ids.subList(0, Math.min(RECENT_CUTS, ids.size()))));
            });
            return Map.of(WATERMARKS_PROPERTY, toJson(watermarks), DEAD_LETTERS_PROPERTY, toJson(deadLetters),
                    CUT_IDS_PROPERTY, toJson(cutIds));
        }
    }

    /** The key of a stream's shard. */
    private static String key(String streamArn, String shardId) {
        return streamArn + "/" + shardId;
    }

    /** The stream's entries by shard id: its own keys', and an earlier release's where it has none of that shard. */
    private static <V> Map<String, V> ofStream(Map<String, V> entries, String streamArn) {
        Map<String, V> byShard = new TreeMap<>();
        entries.forEach((key, value) -> {
            int slash = key.lastIndexOf('/');
            if (slash >= 0 && key.substring(0, slash).equals(streamArn)) {
                byShard.put(key.substring(slash + 1), value);
            }
        });
        entries.forEach((key, value) -> {
            if (earlierRelease(key)) {
                byShard.putIfAbsent(key, value);
            }
        });
        return byShard;
    }

    /** Every entry, an earlier release's keyed as the stream's shard where the stream has none of its own. */
    private static <V> Map<String, V> qualified(Map<String, V> entries, String streamArn) {
        Map<String, V> all = new TreeMap<>();
        entries.forEach((key, value) -> {
            if (!earlierRelease(key)) {
                all.put(key, value);
            }
        });
        entries.forEach((shardId, value) -> {
            if (earlierRelease(shardId)) {
                all.putIfAbsent(key(streamArn, shardId), value);
            }
        });
        return all;
    }

    /** A key of an earlier release: a shard id alone. */
    private static boolean earlierRelease(String key) {
        return key.indexOf('/') < 0;
    }

    /**
     * The checkpoint in the table's properties; in its snapshots' summaries when no delivery of this release set
     * them yet, or when the newest delivery snapshot is not one they know (an earlier release committed since:
     * instances of both ran at once).
     */
    static State read(Table table) {
        State state = fromProperties(table);
        if (state != null) {
            return state;
        }
        Snapshot summarised = summarised(table);
        if (summarised == null) {
            return new State(new TreeMap<>(), new TreeMap<>(), new TreeMap<>());
        }
        String deadLetters = summarised.summary().get(DEAD_LETTERS_PROPERTY);
        return new State(parse(summarised.summary().get(WATERMARKS_PROPERTY)),
                deadLetters == null ? new TreeMap<>() : parse(deadLetters), new TreeMap<>());
    }

    /** The checkpoint in the properties, if they hold it and know the newest delivery snapshot; else null. */
    private static State fromProperties(Table table) {
        Map<String, String> properties = table.properties();
        if (!properties.containsKey(WATERMARKS_PROPERTY)) {
            return null;
        }
        State state = new State(parse(properties.get(WATERMARKS_PROPERTY)),
                properties.containsKey(DEAD_LETTERS_PROPERTY) ? parse(properties.get(DEAD_LETTERS_PROPERTY))
                        : new TreeMap<>(),
                properties.containsKey(CUT_IDS_PROPERTY) ? read(properties.get(CUT_IDS_PROPERTY), IDS)
                        : new TreeMap<>());
        Snapshot delivery = newest(table, s -> s.summary().containsKey(COMMIT_ID_PROPERTY));
        return delivery == null || state.holds(delivery.summary().get(COMMIT_ID_PROPERTY)) ? state : null;
    }

    /**
     * The snapshot whose summary the checkpoint is read from while the properties do not hold it (a table an
     * earlier release delivered to); null when they do, or when there is none. Expiring it would lose the
     * checkpoint.
     */
    static Snapshot checkpointSnapshot(Table table) {
        return fromProperties(table) != null ? null : summarised(table);
    }

    private static Snapshot summarised(Table table) {
        return newest(table, s -> s.summary().containsKey(WATERMARKS_PROPERTY));
    }

    /**
     * Whether a snapshot still in the table's history holds the cut: beyond the last {@link #RECENT_CUTS} of each
     * shard, until the snapshot expires (a retry after an unknown outcome must not take its landed files for a
     * zombie's and delete them).
     */
    static boolean inHistory(Table table, String cutId) {
        return newest(table, s -> cutId.equals(s.summary().get(COMMIT_ID_PROPERTY))) != null;
    }

    private static Snapshot newest(Table table, Predicate<Snapshot> matching) {
        for (Snapshot s = table.currentSnapshot(); s != null;
                s = s.parentId() == null ? null : table.snapshot(s.parentId())) {
            if (matching.test(s)) {
                return s;
            }
        }
        return null;
    }

    /**
     * A watermarks (or staged dead letters) JSON map, such as a delivery snapshot's summary holds as history, read
     * as the stream's: by shard id.
     */
    public static Map<String, String> parse(String json, String streamArn) {
        return ofStream(parse(json), streamArn);
    }

    private static Map<String, String> parse(String json) {
        return read(json, MAP);
    }

    private static <T> T read(String json, TypeReference<T> type) {
        try {
            return JSON.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Unreadable delivery checkpoint in the table's properties", e);
        }
    }

    static String toJson(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
