package io.streamtables.e2e;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One step of an exploration ({@link ExplorePlan}), written as one line that {@link #parse} reads back, so that a
 * failing sequence can be kept in a named test and replayed as it ran. Channels are {@code c1}, {@code c2}; streams
 * {@code s1}-{@code s3} carry JSON records, {@code g1} GSR_JSON ones; tables {@code t1}-{@code t3}.
 */
sealed interface ExploreStep {

    /** CreateChannel (again, under a name a channel had before, on any stream, into any table). */
    record Create(String channel, String stream, String table, int freshnessSeconds) implements ExploreStep {
        @Override
        public String toString() {
            return "create " + channel + " " + stream + " " + table + " " + freshnessSeconds;
        }
    }

    record Update(String channel, int freshnessSeconds) implements ExploreStep {
        @Override
        public String toString() {
            return "update " + channel + " " + freshnessSeconds;
        }
    }

    /** DeleteChannel; with {@code drain}, once the channel delivered every record put so far. */
    record Delete(String channel, boolean drain) implements ExploreStep {
        @Override
        public String toString() {
            return "delete " + channel + (drain ? " drained" : "");
        }
    }

    /** {@code records} records on the stream, one in {@code invalidEvery} invalid (of the stream's format). */
    record Put(String stream, int records, int invalidEvery) implements ExploreStep {
        @Override
        public String toString() {
            return "put " + stream + " " + records + " " + invalidEvery;
        }
    }

    record Split(String stream) implements ExploreStep {
        @Override
        public String toString() {
            return "split " + stream;
        }
    }

    record Merge(String stream) implements ExploreStep {
        @Override
        public String toString() {
            return "merge " + stream;
        }
    }

    /** kill -9 of the all-in-one, started again at once. */
    record Kill() implements ExploreStep {
        @Override
        public String toString() {
            return "kill";
        }
    }

    /** SIGSTOP of the all-in-one for a while, then SIGCONT. */
    record Pause(int seconds) implements ExploreStep {
        @Override
        public String toString() {
            return "pause " + seconds;
        }
    }

    /** S3 (the warehouse and the DLQ) refuses every connection for a while. */
    record S3Outage(int seconds) implements ExploreStep {
        @Override
        public String toString() {
            return "s3-outage " + seconds;
        }
    }

    static ExploreStep parse(String line) {
        List<String> w = Arrays.asList(line.strip().split("\\s+"));
        return switch (w.get(0)) {
            case "create" -> new Create(w.get(1), w.get(2), w.get(3), Integer.parseInt(w.get(4)));
            case "update" -> new Update(w.get(1), Integer.parseInt(w.get(2)));
            case "delete" -> new Delete(w.get(1), w.size() > 2 && w.get(2).equals("drained"));
            case "put" -> new Put(w.get(1), Integer.parseInt(w.get(2)), Integer.parseInt(w.get(3)));
            case "split" -> new Split(w.get(1));
            case "merge" -> new Merge(w.get(1));
            case "kill" -> new Kill();
            case "pause" -> new Pause(Integer.parseInt(w.get(1)));
            case "s3-outage" -> new S3Outage(Integer.parseInt(w.get(1)));
            default -> throw new IllegalArgumentException("not a step: " + line);
        };
    }

    /** Steps separated by {@code ;}, as {@link #toString} writes them. */
    static List<ExploreStep> parseAll(String steps) {
        return Arrays.stream(steps.split(";")).filter(s -> !s.isBlank()).map(ExploreStep::parse).toList();
    }

    /**
     * Whether {@link ExplorePlan} could have drawn the steps: a channel created only when it is not live, into no
     * table another live channel writes, and updated or deleted only while it is live. A shrink keeps to these.
     */
    static boolean wellFormed(List<ExploreStep> steps) {
        Map<String, String> live = new HashMap<>(); // channel → its table
        for (ExploreStep step : steps) {
            if (step instanceof Create c) {
                if (live.containsKey(c.channel()) || live.containsValue(c.table())) {
                    return false;
                }
                live.put(c.channel(), c.table());
            } else if (step instanceof Update u && !live.containsKey(u.channel())
                    || step instanceof Delete d && live.remove(d.channel()) == null) {
                return false;
            }
        }
        return true;
    }

    static String format(List<ExploreStep> steps) {
        return String.join("; ", steps.stream().map(Object::toString).toList());
    }
}
