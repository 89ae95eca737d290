package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The crash test: while records (1 % invalid) flow through a 4-shard stream, a random service
 * process is killed with SIGKILL at random moments, at least 10 times and every stage at least twice, and
 * started again; then the table holds every valid record exactly once and unchanged, and the DLQ every invalid
 * one exactly once.
 *
 * <p>Each event carries a unique id, and the fixture remembers the shard and sequence number Kinesis gave it:
 * {@link DeliveryFixture#verify} checks that every id is in the table once (so every shard + sequence number of
 * a valid record once) with the values sent, that the DLQ holds one entry per invalid shard + sequence number,
 * and that the table's watermarks are the last sequence number of every shard.
 *
 * <p>Table maintenance runs every 10 s meanwhile: commit instances are killed during compactions,
 * snapshot expirations and orphan cleanups as well as deliveries.
 *
 * <p>200 000 records by default, and in bench/fault-loop.sh; the build runs 30 000
 * (deploy/distributed's pom: on a machine where kinesis-local takes 55-75 records/s, 200 000 alone take most of
 * CI's time limit). They are sent one PutRecord each, 8 in flight: kinesis-local
 * 0.6.2's PutRecords slows down as a stream grows (it hashes the shard's whole record list for every entry: 336
 * records/s for the first 20 000 in a 4-shard stream, 83/s after 60 000), PutRecord does not.
 *
 * <p>{@code -Dit.crash.records}, {@code -Dit.crash.ingest-instances} (default 1: a killed ingest-service is
 * started again, its shards resume from the table's watermarks; with more, the others take them over) and
 * {@code -Dit.crash.seed} change the run.
 */
class CrashIT {

    static final int RECORDS = Integer.getInteger("it.crash.records", 200_000);
    static final int INGEST_INSTANCES = Integer.getInteger("it.crash.ingest-instances", 1);
    static final int COMMIT_INSTANCES = 2;
    static final long SEED = Long.getLong("it.crash.seed", System.currentTimeMillis());
    static final List<String> STAGES = List.of("ingest", "convert", "commit", "dlq");
    static final int KILLS_PER_STAGE = 3;
    static final int MAX_SNAPSHOTS = 30;
    /** The REST catalog's run: shorter, two kills per stage, the build's time being the limit. */
    static final int REST_RECORDS = Integer.getInteger("it.crash.rest-records", 15_000);

    @Test
    void killedServicesLoseAndDuplicateNothing() throws Exception {
        crash("crash", DeliveryFixture.CatalogKind.POSTGRES, RECORDS, KILLS_PER_STAGE);
    }

    /**
     * The same on Apache Iceberg's own REST catalog server (scripts/peers.sh "rest"), reached as an S3
     * Tables bucket is: its commits are the server's, the kills land in them too.
     */
    @Test
    void killedServicesLoseAndDuplicateNothingOnRestCatalog() throws Exception {
        crash("crash-rest", DeliveryFixture.CatalogKind.REST, REST_RECORDS, 2);
    }

    private void crash(String name, DeliveryFixture.CatalogKind kind, int records, int killsPerStage)
            throws Exception {
        Assumptions.assumeTrue(Peers.postgresAnswers(), "no PostgreSQL answers at " + Peers.POSTGRES);
        FaultRig.assertKafkaAnswers(FaultRig.KAFKA);
        long began = System.nanoTime();
        String database = FaultRig.databaseName("st_" + name.replace('-', '_'));
        String databaseUrl = FaultRig.createDatabase(database);
        try (DeliveryFixture fixture = new DeliveryFixture(name, kind, 1)) {
            if (kind == DeliveryFixture.CatalogKind.POSTGRES) {
                fixture.catalogProperties.put("uri", databaseUrl);
            }
            Map<String, String> config = FaultRig.config(fixture, databaseUrl, FaultRig.KAFKA);
            // table maintenance on, scaled from days to seconds, so that kills land in compactions, expirations and
            // orphan cleanups too; the orphan age stays far above a commit's retries (30 s back-off at most)
            config.put("delivery.maintenance.enabled", "true");
            config.put("delivery.maintenance.interval", "10s");
            config.put("delivery.maintenance.compaction-grace", "0s");
            config.put("delivery.maintenance.max-small-files", "6");
            config.put("delivery.maintenance.max-snapshots", Integer.toString(MAX_SNAPSHOTS));
            config.put("delivery.maintenance.orphan-age", "3m");
            config.put("delivery.maintenance.min-orphan-age", "3m");
            config.put("delivery.maintenance.orphan-interval", "0s"); // every run
            config.put("delivery.maintenance.lease-duration", "20s"); // a killed holder's lease: 5 min by default
            try (Deployment deployment = new Deployment(fixture, config, INGEST_INSTANCES, COMMIT_INSTANCES)) {
                // 5 s: before table maintenance every commit wrote a metadata.json listing every snapshot so far,
                // and S3Proxy's in-memory store takes 4 GiB at most (Jimfs): at 2 s a slow machine's run made 3 097
                // commits in 50 minutes and the store was full. Maintenance now bounds the snapshots; 5 s is kept
                // so that the run's length and its number of commits stay comparable with earlier runs.
                fixture.createChannel(deployment, 5);
                fixture.awaitActive(deployment);
                System.out.printf("%s: deployment up in %d s, seed %d%n", name, seconds(began), SEED);

                List<Events.Event> all = new Events(SEED, 1).next(records, 100);
                Random random = new Random(SEED);
                List<String> schedule = new ArrayList<>();
                STAGES.forEach(stage -> schedule.addAll(Collections.nCopies(killsPerStage, stage)));
                Collections.shuffle(schedule, random);
                Map<String, Integer> kills = new TreeMap<>();
                long produceStart = System.nanoTime();
                try (FaultRig.Producer producer = new FaultRig.Producer(fixture, all, 500, 0)) {
                    // kill on schedule while the records flow; if they flow longer, go on killing at random
                    while (kills.values().stream().mapToInt(Integer::intValue).sum() < schedule.size()
                            || !producer.done()) {
                        Thread.sleep(2_000 + random.nextInt(6_000)); // sometimes mid-commit, sometimes mid-read
                        int n = kills.values().stream().mapToInt(Integer::intValue).sum();
                        String stage = n < schedule.size() ? schedule.get(n) : STAGES.get(random.nextInt(STAGES.size()));
                        List<StageProcess> instances = deployment.stage(stage);
                        StageProcess victim = instances.get(random.nextInt(instances.size()));
                        long sentBefore = producer.sent();
                        victim.kill();
                        kills.merge(stage, 1, Integer::sum);
                        victim.restart().awaitReady(180);
                        System.out.printf("%s: kill %d: %s (kill -9 after %d records sent), up again%n", name,
                                n + 1, victim.name, sentBefore);
                        if (n + 1 >= 40) {
                            break; // the producer is slow: enough
                        }
                    }
                    producer.await(3_600);
                }
                long produced = seconds(produceStart);
                fixture.awaitDelivered(300, deployment);
                DeliveryFixture.Summary summary = fixture.verify();
                long invalid = all.stream().filter(e -> !e.valid()).count();
                System.out.printf("%s: %d records (%d invalid) in %d s of producing; kills per stage %s; %d rows, "
                        + "%d dead letters, %d data files in %d commits; %d s in all%n", name, all.size(), invalid,
                        produced,
                        kills, summary.rows(), summary.deadLetters(), summary.files(), summary.commits(), seconds(began));
                int maintained = 0;
                for (StageProcess commit : deployment.stage("commit")) {
                    maintained += (int) commit.log().lines().filter(l -> l.contains("Maintained ")).count();
                }
                org.apache.iceberg.Table table = fixture.catalog().loadTable(fixture.table);
                int snapshots = 0;
                for (var ignored : table.snapshots()) {
                    snapshots++;
                }
                System.out.printf("%s: %d maintenance runs changed the table; %d snapshots kept%n", name,
                        maintained, snapshots);
                assertTrue(maintained > 0, "maintenance ran");
                assertTrue(snapshots <= MAX_SNAPSHOTS + 20, snapshots + " snapshots: expiration keeps up");
                assertEquals(all.size() - invalid, summary.rows());
                assertEquals(invalid, summary.deadLetters());
                assertTrue(kills.values().stream().mapToInt(Integer::intValue).sum() >= STAGES.size() * killsPerStage,
                        "kills: " + kills);
                STAGES.forEach(stage -> assertTrue(kills.getOrDefault(stage, 0) >= 2, "kills: " + kills));
            }
        } finally {
            FaultRig.dropDatabase(database);
        }
    }

    private static long seconds(long since) {
        return (System.nanoTime() - since) / 1_000_000_000L;
    }
}
