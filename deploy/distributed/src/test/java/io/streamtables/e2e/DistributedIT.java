package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Socket;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The distributed mode end to end: ingest, convert, commit and dlq as separate JVMs over Kafka, two instances of
 * each, the channel registry and the Iceberg JDBC catalog in one PostgreSQL database of their own, the warehouse and
 * the DLQ on S3Proxy, the stream in kinesis-local. The ingest instances share the shards through leases, the others
 * the bus's partitions (a consumer group per stage). A channel is created with the official Kinesis client; 3 000
 * events (1 in 40 invalid) go to a 4-shard stream, and once the first commit landed one instance of each stage is
 * killed (SIGKILL, not started again) while the rest flow: the survivors take the work over, and the table must hold
 * every valid event once, unchanged, and the DLQ every invalid one once.
 */
class DistributedIT {

    static final String KAFKA = env("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092");
    static final List<String> STAGES = List.of("ingest", "convert", "commit", "dlq");

    @Test
    void deliversEveryRecordOnceWithTwoInstancesOfEachStageWhenOneOfEachIsKilled() throws Exception {
        Assumptions.assumeTrue(Peers.postgresAnswers(), "no PostgreSQL answers at " + Peers.POSTGRES);
        assertKafkaAnswers();
        String database = "st_dist_" + Long.toString(System.currentTimeMillis(), 36);
        String databaseUrl = createDatabase(database);
        try (DeliveryFixture fixture = new DeliveryFixture("dist", DeliveryFixture.CatalogKind.POSTGRES, 2)) {
            fixture.catalogProperties.put("uri", databaseUrl);
            Map<String, String> config = new LinkedHashMap<>(fixture.appConfig);
            config.remove("delivery.channels-file"); // the channel is created through the API below
            config.put("delivery.catalog.uri", databaseUrl);
            config.put("delivery.database-url", databaseUrl);
            config.put("kafka.bootstrap.servers", KAFKA);
            try (Deployment deployment = new Deployment(fixture, config, new Deployment.Scale(2, 2, 2, 2))) {
                fixture.createChannel(deployment, 2);
                fixture.awaitActive(deployment);
                Events events = new Events(7, 1);
                fixture.produce(events.next(1_500, 40));
                awaitLogged(deployment.stage("commit"), "Committed ", 180);

                // the ingest instances shared the 4 shards through leases: each read some, none read one twice
                Map<String, Set<String>> read = new TreeMap<>();
                for (StageProcess p : deployment.stage("ingest")) {
                    read.put(p.name, shardsRead(p));
                }
                System.out.printf("distributed: shards read by ingest instance %s%n", read);
                Set<String> all = new HashSet<>();
                read.forEach((name, shards) -> {
                    assertTrue(!shards.isEmpty(), name + " read no shard: " + read);
                    shards.forEach(s -> assertTrue(all.add(s), s + " read by two ingest instances: " + read));
                });
                assertEquals(4, all.size(), "every shard read: " + read);

                // one instance of each stage dies while records flow; its partner takes its work over
                Map<String, StageProcess> survivors = new TreeMap<>();
                Map<String, Integer> logBefore = new TreeMap<>();
                for (String stage : STAGES) {
                    List<StageProcess> instances = deployment.stage(stage);
                    instances.get(0).kill();
                    survivors.put(stage, instances.get(1));
                    logBefore.put(stage, logOf(instances.get(1)).length());
                }
                fixture.produce(events.next(1_500, 40));
                fixture.awaitDelivered(300, deployment);
                DeliveryFixture.Summary summary = fixture.verify();
                System.out.printf("distributed: %d rows, %d dead letters, %d data files in %d commits%n",
                        summary.rows(), summary.deadLetters(), summary.files(), summary.commits());
                assertEquals(3_000, summary.rows() + summary.deadLetters());
                assertTrue(summary.deadLetters() >= 50, "invalid records were sent: " + summary.deadLetters());

                // each stage did its part in its own process, the survivors after the kills
                assertEquals(all, shardsRead(survivors.get("ingest")), "the surviving ingest instance reads every "
                        + "shard");
                assertTrue(logOf(survivors.get("commit")).substring(logBefore.get("commit")).contains("Committed "),
                        "the surviving commit-service committed nothing after the kill");
                assertTrue(logOf(survivors.get("dlq")).substring(logBefore.get("dlq")).contains("Stored "),
                        "the surviving dlq-service stored nothing after the kill");
                assertTrue(!logHas(survivors.get("ingest"), "Committed "),
                        "ingest-service committed in process: it is not the distributed mode");
            }
        } finally {
            dropDatabase(database);
        }
    }

    private static void awaitLogged(List<StageProcess> processes, String text, int seconds)
            throws InterruptedException {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (processes.stream().noneMatch(p -> logHas(p, text))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("none of " + processes.stream().map(p -> p.name).toList() + " logged '"
                        + text + "' in " + seconds + " s");
            }
            Thread.sleep(500);
        }
    }

    /** The shards an ingest instance started reading (StreamReader logs each with its lease owner). */
    private static Set<String> shardsRead(StageProcess p) {
        Matcher m = Pattern.compile("Reading (shardId-\\d+) of ").matcher(logOf(p));
        Set<String> shards = new TreeSet<>();
        while (m.find()) {
            shards.add(m.group(1));
        }
        return shards;
    }

    private static String logOf(StageProcess p) {
        try {
            return p.log();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static boolean logHas(StageProcess p, String text) {
        try {
            return p.log().contains(text);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void assertKafkaAnswers() {
        String[] hostPort = KAFKA.split(",")[0].split(":");
        try (Socket s = new Socket(hostPort[0], Integer.parseInt(hostPort[1]))) {
            // answers
        } catch (java.io.IOException e) {
            throw new AssertionError("no Kafka broker answers at " + KAFKA + ": start one with `scripts/peers.sh "
                    + "start kafka` (KAFKA_PORT picks its port; KAFKA_BOOTSTRAP_SERVERS points this test at it)");
        }
    }

    /** A database of its own: the services deliver every channel of their registry, and other tests share PG. */
    private static String createDatabase(String name) throws Exception {
        try (Connection c = DriverManager.getConnection(Peers.POSTGRES); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        URI server = URI.create(Peers.POSTGRES.substring("jdbc:".length()));
        return "jdbc:postgresql://" + server.getAuthority() + "/" + name
                + (server.getRawQuery() == null ? "" : "?" + server.getRawQuery());
    }

    private static void dropDatabase(String name) throws Exception {
        try (Connection c = DriverManager.getConnection(Peers.POSTGRES); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        }
    }

    private static String env(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : v;
    }
}
