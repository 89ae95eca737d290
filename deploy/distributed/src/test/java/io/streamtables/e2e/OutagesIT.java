package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Outages of the peers mid-stream, one after the other in one deployment (one start-up for three
 * outages): the catalog's PostgreSQL, S3, then Kafka, each gone for 30 s while records keep flowing. Commits and
 * writes fail and are retried with back-off, the data freshness metric rises, and delivery resumes by itself when
 * the peer returns: no service is restarted, nothing is lost, nothing is duplicated. The Kafka outage also checks
 * that /q/health/ready of every stage turns false while the broker is stopped and true again when it returns.
 *
 * <p>How the peers are stopped, honestly: PostgreSQL and S3Proxy are shared by every test on the machine and are
 * not stopped. The services reach them through a TCP proxy this test owns ({@link CuttableProxy}), and the outage
 * is the proxy's: every open connection reset, new ones refused, for 30 s. Kafka is a broker of this test's own
 * ({@link PrivateKafka}), really stopped (SIGTERM) and started again on the same port and log directory. The test
 * reads the table and the DLQ directly, not through the proxies.
 */
class OutagesIT {

    static final int OUTAGE_SECONDS = Integer.getInteger("it.outage.seconds", 30);
    /** How long delivery may take to catch up once the peer is back: back-off (at most 30 s) and a commit. */
    static final int RECOVERY_SECONDS = 120;
    /** Freshness is back to normal (2 s interval, a loaded machine) below this. */
    static final int SETTLED_SECONDS = 10;

    @Test
    void peerOutagesMidStreamHealByThemselves() throws Exception {
        Assumptions.assumeTrue(Peers.postgresAnswers(), "no PostgreSQL answers at " + Peers.POSTGRES);
        long began = System.nanoTime();
        String database = FaultRig.databaseName("st_outage");
        String databaseUrl = FaultRig.createDatabase(database);
        URI postgres = URI.create(Peers.POSTGRES.substring("jdbc:".length()));
        URI s3 = URI.create(Peers.S3);
        try (DeliveryFixture fixture = new DeliveryFixture("outage", DeliveryFixture.CatalogKind.POSTGRES, 2);
                PrivateKafka kafka = new PrivateKafka(fixture.workDir);
                CuttableProxy pg = new CuttableProxy(postgres.getHost(), postgres.getPort());
                CuttableProxy s3Proxy = new CuttableProxy(s3.getHost(), s3.getPort())) {
            fixture.catalogProperties.put("uri", databaseUrl); // the test reads the table directly
            fixture.routeS3Through("http://127.0.0.1:" + s3Proxy.port());
            String throughProxy = FaultRig.databaseUrl(database, "127.0.0.1:" + pg.port());
            Map<String, String> config = FaultRig.config(fixture, throughProxy, kafka.bootstrap());
            try (Deployment deployment = new Deployment(fixture, config, 1)) {
                fixture.createChannel(deployment, 2);
                fixture.awaitActive(deployment);
                System.out.printf("outage: deployment up in %d s (private Kafka at %s)%n",
                        (System.nanoTime() - began) / 1_000_000_000L, kafka.bootstrap());
                Events events = new Events(17, 1);
                Map<String, String> report = new LinkedHashMap<>();
                try (FaultRig.Producer producer = new FaultRig.Producer(fixture, events.next(200_000, 50), 100, 250)) {
                    awaitCommits(fixture, 60);
                    report.put("postgres", outage(fixture, deployment, "PostgreSQL (proxy cut)", pg::cut, pg::restore,
                            null));
                    report.put("s3", outage(fixture, deployment, "S3 (proxy cut)", s3Proxy::cut, s3Proxy::restore,
                            null));
                    report.put("kafka", outage(fixture, deployment, "Kafka (broker stopped)", kafka::stop,
                            () -> kafka.start(), new ReadinessWatch(deployment)));
                    producer.stop();
                    System.out.printf("outage: %d records sent%n", producer.sent());
                }
                fixture.awaitDelivered(RECOVERY_SECONDS, deployment);
                DeliveryFixture.Summary summary = fixture.verify();
                System.out.printf("outage: %s; %d rows, %d dead letters, %d data files in %d commits; %d s in all%n",
                        report, summary.rows(), summary.deadLetters(), summary.files(), summary.commits(),
                        (System.nanoTime() - began) / 1_000_000_000L);
                assertEquals(fixture.sent.size(), summary.rows() + summary.deadLetters());
                for (StageProcess p : deployment.processes()) {
                    assertEquals(1, p.starts(), p.name + " was restarted");
                    assertTrue(p.alive(), p.name + " died");
                }
            }
        } finally {
            FaultRig.dropDatabase(database);
        }
    }

    interface Step {
        void run() throws Exception;
    }

    /**
     * Cuts a peer for {@link #OUTAGE_SECONDS} while records flow, restores it, and waits until the table holds
     * what was sent before the restore. Freshness must rise above most of the outage's length meanwhile.
     */
    private static String outage(DeliveryFixture fixture, Deployment deployment, String what, Step cut, Step restore,
            ReadinessWatch readiness) throws Exception {
        double before = FaultRig.freshness(deployment);
        cut.run();
        long cutAt = System.nanoTime();
        double peak = 0;
        while (System.nanoTime() - cutAt < OUTAGE_SECONDS * 1_000_000_000L) {
            peak = Math.max(peak, FaultRig.freshness(deployment));
            if (readiness != null) {
                readiness.down();
            }
            Thread.sleep(1_000);
        }
        if (readiness != null) {
            readiness.assertAllDown();
        }
        restore.run();
        long restoredAt = System.nanoTime();
        Map<String, String> target = fixture.expectedWatermarks();
        long deadline = restoredAt + RECOVERY_SECONDS * 1_000_000_000L;
        while (!reached(fixture.committedWatermarks(), target)) {
            peak = Math.max(peak, FaultRig.freshness(deployment));
            if (readiness != null) {
                readiness.up();
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("delivery did not resume in " + RECOVERY_SECONDS + " s after the " + what
                        + " outage: the table holds " + fixture.committedWatermarks() + ", sent before the restore "
                        + target + "\n" + deployment.tail());
            }
            Thread.sleep(1_000);
        }
        long caughtUp = (System.nanoTime() - restoredAt) / 1_000_000;
        // the cut that waited out the outage is committed; what was buffered meanwhile follows in the next ones
        double settled;
        while ((settled = FaultRig.freshness(deployment)) > SETTLED_SECONDS) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("freshness still " + settled + " s " + RECOVERY_SECONDS + " s after the "
                        + what + " outage\n" + deployment.tail());
            }
            Thread.sleep(500);
        }
        long settledAfter = (System.nanoTime() - restoredAt) / 1_000_000;
        if (readiness != null) {
            readiness.awaitAllUp(60);
        }
        String line = String.format("%s out %d s: freshness %.1f s before, peak %.1f s; caught up %d ms after the "
                + "restore, freshness under %d s after %d ms%s", what, OUTAGE_SECONDS, before, peak, caughtUp,
                SETTLED_SECONDS, settledAfter, readiness == null ? "" : "; " + readiness);
        System.out.println("outage: " + line);
        assertTrue(peak >= OUTAGE_SECONDS * 0.6, "the freshness metric did not rise during the " + what + " outage: "
                + "peak " + peak + " s");
        return line;
    }

    private static boolean reached(Map<String, String> committed, Map<String, String> target) {
        return target.entrySet().stream().allMatch(e -> committed.containsKey(e.getKey())
                && new BigInteger(committed.get(e.getKey())).compareTo(new BigInteger(e.getValue())) >= 0);
    }

    private static void awaitCommits(DeliveryFixture fixture, int seconds) throws Exception {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (fixture.committedWatermarks().size() < 4) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no commit of every shard in " + seconds + " s");
            }
            Thread.sleep(500);
        }
    }

    /** /q/health/ready of every stage while Kafka is stopped (503 expected) and after it returns (200). */
    private static final class ReadinessWatch {
        private final Deployment deployment;
        private final long since = System.nanoTime();
        private final Map<String, Long> downAfter = new LinkedHashMap<>();
        private final Map<String, Long> upAfter = new LinkedHashMap<>();
        private long restoredAt;

        ReadinessWatch(Deployment deployment) {
            this.deployment = deployment;
        }

        void down() {
            for (StageProcess p : deployment.stages()) {
                if (!downAfter.containsKey(p.name) && p.readiness() == 503) {
                    downAfter.put(p.name, (System.nanoTime() - since) / 1_000_000);
                }
            }
        }

        void assertAllDown() {
            down();
            for (StageProcess p : deployment.stages()) {
                assertTrue(downAfter.containsKey(p.name), p.name + " stayed ready while Kafka was stopped for "
                        + OUTAGE_SECONDS + " s (ready: " + p.readiness() + ")");
            }
            restoredAt = System.nanoTime();
        }

        void up() {
            for (StageProcess p : deployment.stages()) {
                if (!upAfter.containsKey(p.name) && p.readiness() == 200) {
                    upAfter.put(p.name, (System.nanoTime() - restoredAt) / 1_000_000);
                }
            }
        }

        void awaitAllUp(int seconds) throws InterruptedException {
            long deadline = System.nanoTime() + seconds * 1_000_000_000L;
            while (upAfter.size() < deployment.stages().size() && System.nanoTime() < deadline) {
                up();
                Thread.sleep(500);
            }
            assertEquals(deployment.stages().size(), upAfter.size(), "not ready again " + seconds
                    + " s after Kafka returned: " + upAfter);
        }

        @Override
        public String toString() {
            return "not ready after (ms from stop) " + downAfter + ", ready again after (ms from start) " + upAfter;
        }
    }
}
