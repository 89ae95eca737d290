package io.streamtables.e2e;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Where every record put during an exploration must end up. A record put on a stream while a channel reading it is
 * ACTIVE must be in that channel's table once (valid) or in its DLQ once with the code it deserves (invalid); one put
 * while the channel was CREATING or DELETING, or left undelivered by a delete that did not wait, at most once; one put
 * while no channel of the name existed, nowhere. A channel made into a table another channel created must be FAILED,
 * and nothing may be in a table or a DLQ that no channel was expected to write there.
 */
final class ExploreModel {

    enum Expect { ONCE, AT_MOST_ONCE }

    enum State { CREATING, ACTIVE, FAILED, DELETING, GONE }

    /** One life of a channel name: from its CreateChannel to its deletion. */
    static final class Incarnation {
        final int number;
        final String channel;
        final String stream;
        final String table;
        State state = State.CREATING;
        final Map<Long, Expect> records = new LinkedHashMap<>();

        Incarnation(int number, String channel, String stream, String table) {
            this.number = number;
            this.channel = channel;
            this.stream = stream;
            this.table = table;
        }

        @Override
        public String toString() {
            return channel + "#" + number + " (" + stream + " -> " + table + ", " + state + ")";
        }
    }

    /**
     * A record put: its place in the stream, the code of its dead letter (null for a valid one) and the values its
     * row must hold.
     */
    record Sent(long id, String stream, String streamArn, String shardId, String sequenceNumber, String code,
            Map<String, Object> row) {
        String position() {
            return streamArn + "/" + shardId + "/" + sequenceNumber;
        }
    }

    final List<Incarnation> incarnations = new ArrayList<>();
    final Map<String, Incarnation> live = new HashMap<>();
    final Map<Long, Sent> sent = new LinkedHashMap<>();
    /** The channel whose first life made each table: another channel is refused it. */
    final Map<String, String> tableMaker = new HashMap<>();

    /** A CreateChannel: the state the channel must reach, ACTIVE unless another channel made its table. */
    Incarnation created(String channel, String stream, String table) {
        Incarnation i = new Incarnation(incarnations.size() + 1, channel, stream, table);
        incarnations.add(i);
        live.put(channel, i);
        return i;
    }

    State expectedState(Incarnation i, boolean tableExists) {
        String maker = tableMaker.get(i.table);
        return tableExists && maker != null && !maker.equals(i.channel) ? State.FAILED : State.ACTIVE;
    }

    void reached(Incarnation i, State state) {
        i.state = state;
        if (state == State.ACTIVE) {
            tableMaker.putIfAbsent(i.table, i.channel);
        }
    }

    void put(Sent s) {
        sent.put(s.id(), s);
        for (Incarnation i : live.values()) {
            if (!i.stream.equals(s.stream())) {
                continue;
            }
            switch (i.state) {
                case ACTIVE -> i.records.put(s.id(), Expect.ONCE);
                case CREATING, DELETING -> i.records.put(s.id(), Expect.AT_MOST_ONCE);
                default -> { }
            }
        }
    }

    /** A DeleteChannel: what was put and not waited for may or may not have been delivered. */
    void deleting(Incarnation i, boolean drained) {
        if (!drained) {
            i.records.replaceAll((id, e) -> Expect.AT_MOST_ONCE);
        }
        i.state = State.DELETING;
    }

    void gone(Incarnation i) {
        i.state = State.GONE;
        live.remove(i.channel);
    }

    /**
     * What the tables and DLQs hold, against the model.
     *
     * @param rows table → record id → rows of it
     * @param deadLetters channel → record position → the codes of its dead letters
     * @param mismatches rows whose values differ from what was put
     * @return every violation, described
     */
    List<String> check(Map<String, Map<Long, Integer>> rows, Map<String, Map<String, List<String>>> deadLetters,
            List<String> mismatches) {
        List<String> violations = new ArrayList<>(mismatches);
        Map<String, Sent> byPosition = new HashMap<>();
        sent.values().forEach(s -> byPosition.put(s.position(), s));
        // every row and dead letter found must be one an incarnation of that table or channel was expected to write
        rows.forEach((table, ids) -> ids.forEach((id, count) -> {
            Sent s = sent.get(id);
            boolean expected = s != null && incarnations.stream().anyMatch(i -> i.table.equals(table)
                    && i.records.containsKey(id));
            if (!expected) {
                violations.add("table " + table + " holds record " + id + " (" + count + " rows), which no channel "
                        + "writing it was to deliver" + (s == null ? "" : ": put on " + s.stream()));
            }
        }));
        deadLetters.forEach((channel, entries) -> entries.forEach((position, codes) -> {
            Sent s = byPosition.get(position);
            boolean expected = s != null && incarnations.stream().anyMatch(i -> i.channel.equals(channel)
                    && i.records.containsKey(s.id()));
            if (!expected) {
                violations.add("the DLQ of " + channel + " holds " + position + " (" + codes + "), which no life of "
                        + "the channel was to deliver" + (s == null ? "" : ": record " + s.id() + " on " + s.stream()));
            }
        }));
        // every record each life was to deliver: once, or at most once, where it belongs, with its code
        for (Incarnation i : incarnations) {
            i.records.forEach((id, expect) -> {
                Sent s = sent.get(id);
                int found;
                if (s.code() == null) {
                    found = rows.getOrDefault(i.table, Map.of()).getOrDefault(id, 0);
                    if (deadLetters.getOrDefault(i.channel, Map.of()).containsKey(s.position())) {
                        violations.add("valid record " + id + " of " + i + " is a dead letter: "
                                + deadLetters.get(i.channel).get(s.position()));
                    }
                } else {
                    List<String> codes = deadLetters.getOrDefault(i.channel, Map.of()).getOrDefault(s.position(),
                            List.of());
                    found = codes.size();
                    codes.stream().filter(c -> !Objects.equals(c, s.code())).forEach(c -> violations.add(
                            "record " + id + " of " + i + " is a dead letter with " + c + ", not " + s.code()));
                    if (rows.getOrDefault(i.table, Map.of()).containsKey(id)) {
                        violations.add("invalid record " + id + " of " + i + " is a row of " + i.table);
                    }
                }
                if (expect == Expect.ONCE && found != 1 || expect == Expect.AT_MOST_ONCE && found > 1) {
                    violations.add("record " + id + " (" + (s.code() == null ? "valid" : s.code()) + ", put on "
                            + s.stream() + ") of " + i + " is there " + found + " times, expected " + expect);
                }
            });
        }
        return violations;
    }

    /** Whether every record the lives now ACTIVE must deliver once is in their tables and DLQs. */
    boolean settled(Map<String, Map<Long, Integer>> rows, Map<String, Map<String, List<String>>> deadLetters,
            Incarnation only) {
        for (Incarnation i : incarnations) {
            if (only != null && i != only) {
                continue;
            }
            for (Map.Entry<Long, Expect> e : i.records.entrySet()) {
                if (e.getValue() != Expect.ONCE) {
                    continue;
                }
                Sent s = sent.get(e.getKey());
                boolean there = s.code() == null ? rows.getOrDefault(i.table, Map.of()).containsKey(s.id())
                        : deadLetters.getOrDefault(i.channel, Map.of()).containsKey(s.position());
                if (!there) {
                    return false;
                }
            }
        }
        return true;
    }
}
