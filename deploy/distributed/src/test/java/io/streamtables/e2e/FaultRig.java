package io.streamtables.e2e;

import java.net.Socket;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the fault tests of the distributed mode share: a PostgreSQL database of their own, the services'
 * configuration, the channel (created over the channel API), a paced producer and the freshness metric.
 */
final class FaultRig {

    static final String KAFKA = env("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:9092");
    /** The freshness gauge of DeliveryMetrics ({@code delivery.data.freshness}, seconds) as Prometheus names it. */
    static final String FRESHNESS = "delivery_data_freshness_seconds";

    private FaultRig() {
    }

    /** The services' configuration: the fixture's, with the channel registry and the catalog in this database. */
    static Map<String, String> config(DeliveryFixture fixture, String databaseUrl, String kafka) {
        Map<String, String> config = new LinkedHashMap<>(fixture.appConfig);
        config.remove("delivery.channels-file"); // the channel is created through the API
        if (config.containsKey("delivery.catalog.uri")) { // not when the channel's bucket has a catalog of its own
            config.put("delivery.catalog.uri", databaseUrl);
        }
        config.put("delivery.database-url", databaseUrl);
        config.put("kafka.bootstrap.servers", kafka);
        // A consumer that died (kill -9) or hangs (SIGSTOP) loses its partitions after 10 s instead of the
        // client's default 45 s: the tests wait less for the rebalance, nothing else changes.
        config.put("mp.messaging.connector.smallrye-kafka.session.timeout.ms", "10000");
        config.put("mp.messaging.connector.smallrye-kafka.heartbeat.interval.ms", "2000");
        return config;
    }

    static void assertKafkaAnswers(String bootstrap) {
        String[] hostPort = bootstrap.split(",")[0].split(":");
        try (Socket s = new Socket(hostPort[0], Integer.parseInt(hostPort[1]))) {
            // answers
        } catch (java.io.IOException e) {
            throw new AssertionError("no Kafka broker answers at " + bootstrap + ": start one with `scripts/peers.sh "
                    + "start kafka` (KAFKA_BOOTSTRAP_SERVERS points this test at another one)");
        }
    }

    /** A database of its own: the services deliver every channel of their registry, and other tests share PG. */
    static String createDatabase(String name) throws Exception {
        try (Connection c = DriverManager.getConnection(Peers.POSTGRES); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        return databaseUrl(name, null);
    }

    /** The JDBC URL of the database, on another host:port (a proxy) when given. */
    static String databaseUrl(String name, String authority) {
        URI server = URI.create(Peers.POSTGRES.substring("jdbc:".length()));
        return "jdbc:postgresql://" + (authority == null ? server.getAuthority() : authority) + "/" + name
                + (server.getRawQuery() == null ? "" : "?" + server.getRawQuery());
    }

    static void dropDatabase(String name) {
        try (Connection c = DriverManager.getConnection(Peers.POSTGRES); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        } catch (Exception e) {
            System.err.println("dropping database " + name + ": " + e);
        }
    }

    static String databaseName(String prefix) {
        return prefix + "_" + Long.toString(System.currentTimeMillis(), 36);
    }

    /**
     * Sends events in the background, {@code perBatch} every {@code pauseMillis}, until {@link #stop} or the
     * events run out; one PutRecord per event, 8 in flight ({@link DeliveryFixture#produceEach}).
     */
    static final class Producer implements AutoCloseable {
        private final AtomicBoolean stop = new AtomicBoolean();
        private final AtomicLong sent = new AtomicLong();
        private final Thread thread;
        private volatile Throwable failure;

        Producer(DeliveryFixture fixture, List<Events.Event> events, int perBatch, long pauseMillis) {
            thread = new Thread(() -> {
                try {
                    for (int from = 0; from < events.size() && !stop.get(); from += perBatch) {
                        List<Events.Event> batch = events.subList(from, Math.min(events.size(), from + perBatch));
                        fixture.produceEach(batch, 8);
                        sent.addAndGet(batch.size());
                        if (pauseMillis > 0) {
                            Thread.sleep(pauseMillis);
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (Throwable t) {
                    failure = t;
                }
            }, "producer");
            thread.setDaemon(true);
            thread.start();
        }

        long sent() {
            return sent.get();
        }

        boolean done() {
            return !thread.isAlive();
        }

        /** Stops after the batch in flight; rethrows what failed the producer. */
        void stop() throws InterruptedException {
            stop.set(true);
            await(120);
        }

        /** Waits for the producer to send everything. */
        void await(long seconds) throws InterruptedException {
            thread.join(seconds * 1000);
            if (thread.isAlive()) {
                throw new AssertionError("the producer did not finish in " + seconds + " s (" + sent() + " sent)");
            }
            if (failure != null) {
                throw new AssertionError("the producer failed after " + sent() + " records", failure);
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop.set(true);
            thread.join(60_000);
        }
    }

    /** The highest data freshness any of the services reports (each reports the records it holds). */
    static double freshness(Deployment deployment) {
        double max = 0;
        for (StageProcess p : deployment.processes()) {
            double v = p.metric(FRESHNESS);
            if (!Double.isNaN(v)) {
                max = Math.max(max, v);
            }
        }
        return max;
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String env(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : v;
    }
}
