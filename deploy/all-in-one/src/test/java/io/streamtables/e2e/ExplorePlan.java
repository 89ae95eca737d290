package io.streamtables.e2e;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The steps of an exploration, drawn from a seed alone (never from what the service answered), so that a seed
 * replays the same sequence: channels created, updated, deleted and created again under their names on the same or
 * another stream and into the same or another table; records put, valid and invalid, JSON and GSR_JSON; shards split
 * and merged; the all-in-one killed or paused; S3 away for a while.
 */
final class ExplorePlan {

    static final List<String> CHANNELS = List.of("c1", "c2");
    static final List<String> STREAMS = List.of("s1", "s2", "s3", "g1");
    static final List<String> TABLES = List.of("t1", "t2", "t3");

    private ExplorePlan() {
    }

    static List<ExploreStep> of(long seed, int length) {
        Random random = new Random(seed);
        Map<String, String> live = new HashMap<>(); // channel → its stream
        Map<String, String> lastTable = new HashMap<>(); // channel → the table of its last life
        Map<String, Integer> openShards = new HashMap<>();
        STREAMS.forEach(s -> openShards.put(s, 2));
        List<ExploreStep> steps = new ArrayList<>();
        while (steps.size() < length) {
            int roll = random.nextInt(100);
            List<String> unused = CHANNELS.stream().filter(c -> !live.containsKey(c)).toList();
            if (steps.isEmpty() || roll < 18 && !unused.isEmpty()) {
                String channel = unused.isEmpty() ? null : unused.get(random.nextInt(unused.size()));
                if (channel == null) {
                    continue;
                }
                String stream = STREAMS.get(random.nextInt(STREAMS.size()));
                // created again, half the time into the table of its last life: the managed feature's way to change
                // a channel's stream or settings
                List<String> free = TABLES.stream().filter(t -> live.keySet().stream().noneMatch(c ->
                        t.equals(lastTable.get(c)))).toList(); // never one another live channel writes: a race
                String table = lastTable.containsKey(channel) && free.contains(lastTable.get(channel))
                        && random.nextBoolean() ? lastTable.get(channel) : free.get(random.nextInt(free.size()));
                steps.add(new ExploreStep.Create(channel, stream, table, List.of(1, 2, 5).get(random.nextInt(3))));
                live.put(channel, stream);
                lastTable.put(channel, table);
            } else if (roll < 28 && !live.isEmpty()) {
                String channel = pick(random, live.keySet());
                steps.add(new ExploreStep.Delete(channel, random.nextInt(10) < 7));
                live.remove(channel);
            } else if (roll < 32 && !live.isEmpty()) {
                steps.add(new ExploreStep.Update(pick(random, live.keySet()), List.of(1, 3, 10).get(random.nextInt(3))));
            } else if (roll < 72) {
                // mostly the streams channels read
                String stream = !live.isEmpty() && random.nextInt(4) > 0 ? pick(random, live.values())
                        : STREAMS.get(random.nextInt(STREAMS.size()));
                steps.add(new ExploreStep.Put(stream, 20 + random.nextInt(181), List.of(10, 25).get(random.nextInt(2))));
            } else if (roll < 78) {
                String stream = STREAMS.get(random.nextInt(STREAMS.size()));
                if (openShards.get(stream) < 5) {
                    steps.add(new ExploreStep.Split(stream));
                    openShards.merge(stream, 1, Integer::sum);
                }
            } else if (roll < 82) {
                String stream = STREAMS.get(random.nextInt(STREAMS.size()));
                if (openShards.get(stream) >= 2) {
                    steps.add(new ExploreStep.Merge(stream));
                    openShards.merge(stream, -1, Integer::sum);
                }
            } else if (roll < 89) {
                steps.add(new ExploreStep.Kill());
            } else if (roll < 94) {
                steps.add(new ExploreStep.Pause(3 + random.nextInt(10)));
            } else {
                steps.add(new ExploreStep.S3Outage(3 + random.nextInt(13)));
            }
        }
        // the end: records on every stream a channel reads, which the check then finds delivered
        live.values().stream().distinct().sorted().forEach(stream -> steps.add(new ExploreStep.Put(stream, 50, 10)));
        return steps;
    }

    private static String pick(Random random, java.util.Collection<String> from) {
        List<String> sorted = from.stream().sorted().toList();
        return sorted.get(random.nextInt(sorted.size()));
    }
}
