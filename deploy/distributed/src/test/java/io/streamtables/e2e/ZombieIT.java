package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The zombie test: a commit-service instance paused (SIGSTOP) while it buffers rows, past its Kafka
 * session timeout (10 s here), loses its partitions to the other instance, which reads the shards again from the
 * table's watermarks and commits them. Resumed (SIGCONT) after that, the zombie still holds its stale buffer; its
 * commit must fail the watermark compare-and-set and be dropped (ShardWatermarks' ZombieCommitException), so it
 * commits nothing: the table gets no snapshot while no new records come, the zombie logs no commit after resuming,
 * and the table holds every record exactly once, also after more records flow to both instances.
 */
class ZombieIT {

    static final int SESSION_TIMEOUT_SECONDS = 10;

    @Test
    void aResumedZombieCommitsNothing() throws Exception {
        Assumptions.assumeTrue(Peers.postgresAnswers(), "no PostgreSQL answers at " + Peers.POSTGRES);
        FaultRig.assertKafkaAnswers(FaultRig.KAFKA);
        long began = System.nanoTime();
        String database = FaultRig.databaseName("st_zombie");
        String databaseUrl = FaultRig.createDatabase(database);
        try (DeliveryFixture fixture = new DeliveryFixture("zombie", DeliveryFixture.CatalogKind.POSTGRES, 2)) {
            fixture.catalogProperties.put("uri", databaseUrl);
            Map<String, String> config = FaultRig.config(fixture, databaseUrl, FaultRig.KAFKA);
            try (Deployment deployment = new Deployment(fixture, config, 2)) {
                fixture.createChannel(deployment, 2);
                fixture.awaitActive(deployment);
                Events events = new Events(5, 1);
                StageProcess zombie;
                StageProcess other;
                try (FaultRig.Producer producer = new FaultRig.Producer(fixture, events.next(100_000, 50), 200, 250)) {
                    // the zombie is an instance that holds shards: the 4 shard keys may all hash to the
                    // partitions of one instance, so the first to commit is it
                    StageProcess first = firstToLog(deployment.stage("commit"), "Committed ", 120);
                    zombie = first;
                    other = deployment.stage("commit").stream().filter(p -> p != first).findFirst().orElseThrow();
                    // pause while the zombie holds buffered rows (its freshness gauge counts them)
                    long deadline = System.nanoTime() + 60_000_000_000L;
                    while (!(zombie.metric(FaultRig.FRESHNESS) > 0) && System.nanoTime() < deadline) {
                        Thread.sleep(50);
                    }
                    Map<String, String> atPause = fixture.committedWatermarks();
                    zombie.pause();
                    long pausedAt = System.nanoTime();
                    System.out.printf("zombie: %s paused (SIGSTOP) holding rows; table at %s%n", zombie.name, atPause);
                    // the other instance takes the zombie's shards after the session timeout and commits them all
                    awaitEveryShardPast(fixture, atPause, 120);
                    long movedAfter = (System.nanoTime() - pausedAt) / 1_000_000;
                    while ((System.nanoTime() - pausedAt) / 1_000_000_000L < 2L * SESSION_TIMEOUT_SECONDS) {
                        Thread.sleep(200);
                    }
                    producer.stop();
                    fixture.awaitDelivered(120, deployment);
                    System.out.printf("zombie: every shard committed by %s %d ms after the pause; %d records sent, "
                            + "all delivered while the zombie is paused%n", other.name, movedAfter, producer.sent());
                }
                Table table = fixture.catalog().loadTable(fixture.table);
                long snapshotBefore = table.currentSnapshot().snapshotId();
                int snapshotsBefore = count(table.snapshots());
                int logBefore = zombie.log().length();
                zombie.resume();
                System.out.printf("zombie: %s resumed (SIGCONT) after %d s%n", zombie.name,
                        (System.nanoTime() - began) / 1_000_000_000L);
                // it ticks, tries its stale cut (its compare-and-set fails before any dead letter is published),
                // and rejoins the group
                long resumedAt = System.nanoTime();
                while (!zombie.log().substring(logBefore).contains("Dropping a commit")
                        && System.nanoTime() - resumedAt < 90_000_000_000L) {
                    Thread.sleep(500);
                }
                long droppedAfter = (System.nanoTime() - resumedAt) / 1_000_000;
                Thread.sleep(5_000);
                table.refresh();
                String after = zombie.log().substring(logBefore);
                System.out.printf("zombie: after resuming it logged %d lines; dropped a commit: %s (%d ms after resuming); "
                        + "committed: %s%n", after.lines().count(), after.contains("Dropping a commit"), droppedAfter,
                        after.contains("Committed "));
                after.lines().filter(l -> l.contains("Dropping a commit") || l.contains("Committed "))
                        .forEach(l -> System.out.println("zombie:   " + l));
                assertEquals(snapshotBefore, table.currentSnapshot().snapshotId(),
                        "a snapshot was committed after the zombie resumed, with no new records");
                assertEquals(snapshotsBefore, count(table.snapshots()));
                assertFalse(after.contains("Committed "), "the zombie committed after resuming:\n" + after);
                assertTrue(after.contains("Dropping a commit"), "the zombie's stale cut was not dropped:\n" + after);
                assertTrue(zombie.alive(), "the zombie died");

                // delivery goes on with both instances, exactly once
                fixture.produce(events.next(5_000, 50));
                fixture.awaitDelivered(120, deployment);
                DeliveryFixture.Summary summary = fixture.verify();
                System.out.printf("zombie: %d rows, %d dead letters, %d data files in %d commits; %d s in all%n",
                        summary.rows(), summary.deadLetters(), summary.files(), summary.commits(),
                        (System.nanoTime() - began) / 1_000_000_000L);
                assertEquals(fixture.sent.size(), summary.rows() + summary.deadLetters());
            }
        } finally {
            FaultRig.dropDatabase(database);
        }
    }

    private static int count(Iterable<Snapshot> snapshots) {
        int n = 0;
        for (Snapshot ignored : snapshots) {
            n++;
        }
        return n;
    }

    private static StageProcess firstToLog(List<StageProcess> processes, String text, int seconds) throws Exception {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < deadline) {
            for (StageProcess p : processes) {
                if (p.log().contains(text)) {
                    return p;
                }
            }
            Thread.sleep(250);
        }
        throw new AssertionError("no commit instance logged '" + text + "' in " + seconds + " s");
    }

    private static void awaitEveryShardPast(DeliveryFixture fixture, Map<String, String> before, int seconds)
            throws Exception {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        Map<String, String> now = Map.of();
        while (System.nanoTime() < deadline) {
            now = fixture.committedWatermarks();
            Map<String, String> current = now;
            if (current.size() >= 4 && before.entrySet().stream().allMatch(e -> current.containsKey(e.getKey())
                    && new java.math.BigInteger(current.get(e.getKey())).compareTo(new java.math.BigInteger(e.getValue())) > 0)) {
                return;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("the shards did not move on in " + seconds + " s: " + before + " -> " + now);
    }
}
