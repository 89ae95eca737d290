package io.streamtables.bench;

import io.streamtables.bus.Sequences;
import io.streamtables.watermarks.ShardWatermarks;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.exceptions.NoSuchTableException;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;

/**
 * The distributed mode (each stage its own JVM, Kafka between them, PostgreSQL for the registry and the catalog)
 * beside the all-in-one, on the same records and the same 4-shard kinesis-local stream:
 * <ol>
 * <li><b>latency</b>: a producer sends {@code rate} records/s for {@code seconds}; each stage's
 * {@code delivery_chunk_latency_seconds} p50/p99 (age of a chunk's oldest record when the stage hands it on) is
 * read from {@code /q/metrics} once everything is committed;</li>
 * <li><b>throughput</b>: ingest is stopped, {@code backlog} records are put, ingest is started again; rows/s from
 * the moment it is ready to the commit that covers the last record, and the CPU all processes spent in between.
 * The backlog takes the producer's speed out of the figure.</li>
 * </ol>
 * {@code instances} = 0 runs the all-in-one; N runs N instances of every stage.
 */
final class DistributedBench {

    static final List<String> STAGES = List.of("ingest", "convert", "commit", "dlq");
    static final List<String> MODULES = List.of("control-plane", "ingest-service", "convert-service",
            "commit-service", "dlq-service");
    private static final String CHANNEL = "bench-channel";

    private DistributedBench() {
    }

    static Result run(Path dir, Path allInOne, Path services, String kinesisEndpoint, String kafka, String postgres, int instances,
            long seed, int backlog, int rate, int seconds, int freshness) throws Exception {
        String mode = instances == 0 ? "all-in-one" : "distributed x" + instances;
        Result r = new Result("dist").put("mode", mode).put("instances", instances).put("freshness_s", freshness)
                .put("steady_rate", rate).put("steady_s", seconds);
        String stream = "bench-dist-" + Long.toString(System.currentTimeMillis(), 36);
        String database = "st_bench_" + Long.toString(System.currentTimeMillis(), 36);
        String databaseUrl = createDatabase(postgres, database);
        // kinesis-local can take long to answer a PutRecords of 500 on a busy machine; a retry would duplicate
        try (KinesisClient kinesis = Setup.kinesis(kinesisEndpoint, Duration.ofMinutes(5))) {
            Setup.createStream(kinesis, stream, 4);
            AppSetup setup = new AppSetup(dir, stream, freshness, kinesisEndpoint, 2500);
            Map<String, String> catalogProperties = new HashMap<>(Setup.catalogProperties(dir.resolve("catalog")));
            catalogProperties.put("uri", databaseUrl);
            catalogProperties.forEach((k, v) -> setup.config.put("delivery.catalog." + k, v));
            setup.config.put("delivery.database-url", databaseUrl);
            setup.config.put("kafka.bootstrap.servers", kafka);
            // the services' catalog name: the JDBC catalog keeps it with every table
            Catalog catalog = CatalogUtil.buildIcebergCatalog("delivery", catalogProperties, null);
            Producer producer = new Producer(kinesis, stream, seed);
            try (Deployment d = new Deployment(allInOne, services, dir, setup.config, instances)) {
                d.start();
                awaitActive(d.url());

                // 1. latency at a steady rate
                Map<String, String> sent = producer.steady(rate, seconds);
                if (!awaitDelivered(catalog, setup, sent, (freshness + 120) * 1000L)) {
                    throw new IllegalStateException("the steady records were not delivered");
                }
                latencies(r, d);

                // 2. throughput: a backlog drained by freshly started ingest instances
                d.stopIngest();
                long putStart = System.currentTimeMillis();
                sent = producer.burst(backlog);
                r.put("backlog_records", backlog).put("backlog_put_s", (System.currentTimeMillis() - putStart) / 1000.0);
                d.startIngest();
                long cpuStart = d.cpuNanos();
                long start = System.currentTimeMillis();
                boolean delivered = awaitDelivered(catalog, setup, sent, 600_000);
                double drain = (System.currentTimeMillis() - start) / 1000.0;
                double cpu = (d.cpuNanos() - cpuStart) / 1e9;
                r.put("delivered", delivered).put("drain_s", drain).put("rows_per_s", backlog / drain)
                        .put("cpu_s", cpu).put("cpu_s_per_million_rows", cpu * 1e6 / backlog)
                        .put("processes", d.all().size());
            }
            AppSetup.Stats stats = AppSetup.stats(catalog, setup.table, setup.streamArn, 0);
            r.put("table_rows", stats.records).put("commits", stats.commits.size());
            if (catalog instanceof AutoCloseable c) {
                c.close();
            }
        } finally {
            dropDatabase(postgres, database);
        }
        return r;
    }

    /** Per stage, the worst instance's p50 and p99, and what the stage added to the one before it. */
    private static void latencies(Result r, Deployment d) throws Exception {
        Map<String, double[]> byStage = new LinkedHashMap<>();
        for (AllInOne p : d.all()) {
            String metrics = p.management("/q/metrics");
            for (String stage : STAGES) {
                double p50 = quantile(metrics, stage, "0.5");
                double p99 = quantile(metrics, stage, "0.99");
                if (p50 >= 0) {
                    byStage.merge(stage, new double[] {p50, p99},
                            (a, b) -> new double[] {Math.max(a[0], b[0]), Math.max(a[1], b[1])});
                }
            }
        }
        double[] before = {0, 0};
        for (String stage : List.of("ingest", "convert", "commit")) {
            double[] v = byStage.get(stage);
            if (v == null) {
                continue;
            }
            r.put("latency_" + stage + "_p50_s", v[0]).put("latency_" + stage + "_p99_s", v[1])
                    .put("added_" + stage + "_p50_s", v[0] - before[0]).put("added_" + stage + "_p99_s", v[1] - before[1]);
            before = v;
        }
    }

    /** A quantile of {@code delivery_chunk_latency_seconds} for the stage, or -1 when the process has none. */
    static double quantile(String metrics, String stage, String q) {
        return metrics.lines().filter(l -> l.startsWith("delivery_chunk_latency_seconds{")
                        && l.contains("stage=\"" + stage + "\"") && l.contains("quantile=\"" + q + "\""))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf('}') + 1).trim())).max().orElse(-1);
    }

    private static void awaitActive(String url) throws Exception {
        try (KinesisClient api = Setup.kinesis(url, Duration.ofSeconds(30))) {
            String arn = "arn:aws:kinesis:" + Setup.REGION + ":" + Setup.ACCOUNT + ":channel/" + CHANNEL;
            for (int i = 0; i < 600; i++) {
                try {
                    String status = api.describeChannel(b -> b.channelARN(arn)).channelDescription()
                            .channelStatusAsString();
                    if ("ACTIVE".equals(status)) {
                        Thread.sleep(1_000); // the readers are positioned at the channel's activation
                        return;
                    }
                } catch (software.amazon.awssdk.services.kinesis.model.ResourceNotFoundException notYet) {
                    // the channels file is imported at start-up
                }
                Thread.sleep(100);
            }
            throw new IllegalStateException("channel " + arn + " not ACTIVE in 60 s");
        }
    }

    /** Waits until the table's watermarks reach every shard's last sequence number put. */
    private static boolean awaitDelivered(Catalog catalog, AppSetup setup, Map<String, String> last, long timeoutMillis)
            throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (System.currentTimeMillis() < deadline) {
            try {
                Map<String, String> wm = ShardWatermarks.committed(catalog.loadTable(setup.table), setup.streamArn);
                if (last.entrySet().stream().allMatch(e -> Sequences.atOrBelow(e.getValue(), wm.get(e.getKey())))) {
                    return true;
                }
            } catch (NoSuchTableException notYet) {
                // the first commit creates it
            }
            Thread.sleep(100);
        }
        try {
            System.err.println("not delivered: put up to " + last + ", table at "
                    + ShardWatermarks.committed(catalog.loadTable(setup.table), setup.streamArn));
        } catch (RuntimeException e) {
            System.err.println("not delivered: put up to " + last + "; " + e);
        }
        return false;
    }

    /** The benchmark records into the stream with PutRecords; returns each shard's last sequence number. */
    private static final class Producer {
        private final KinesisClient kinesis;
        private final String stream;
        private final long seed;
        private final AtomicLong next = new AtomicLong();

        Producer(KinesisClient kinesis, String stream, long seed) {
            this.kinesis = kinesis;
            this.stream = stream;
            this.seed = seed;
        }

        Map<String, String> steady(int rate, int seconds) throws InterruptedException {
            Map<String, String> last = new HashMap<>();
            int batch = Math.max(1, rate / 10);
            long start = System.currentTimeMillis();
            long due = start;
            while (System.currentTimeMillis() - start < seconds * 1000L) {
                put(batch, last);
                due += batch * 1000L / rate;
                Thread.sleep(Math.max(0, due - System.currentTimeMillis()));
            }
            return last;
        }

        /** As fast as kinesis-local takes them, from 2 threads. */
        Map<String, String> burst(int records) throws Exception {
            ExecutorService threads = Executors.newFixedThreadPool(2);
            try {
                List<Future<Map<String, String>>> parts = new ArrayList<>();
                for (int t = 0; t < 2; t++) {
                    int share = records / 2 + (t < records % 2 ? 1 : 0);
                    parts.add(threads.submit(() -> {
                        Map<String, String> last = new HashMap<>();
                        for (int done = 0; done < share; done += 500) {
                            put(Math.min(500, share - done), last);
                        }
                        return last;
                    }));
                }
                Map<String, String> last = new HashMap<>();
                for (Future<Map<String, String>> part : parts) {
                    part.get().forEach((shard, seq) -> last.merge(shard, seq, Sequences::max));
                }
                return last;
            } finally {
                threads.shutdownNow();
            }
        }

        private void put(int count, Map<String, String> last) {
            List<PutRecordsRequestEntry> entries = new ArrayList<>(count);
            for (int k = 0; k < count; k++) {
                long i = next.getAndIncrement();
                entries.add(PutRecordsRequestEntry.builder().data(SdkBytes.fromByteArrayUnsafe(Events.event(seed, i, 24)))
                        .partitionKey("pk-" + i).build());
            }
            while (!entries.isEmpty()) {
                List<PutRecordsRequestEntry> request = entries;
                PutRecordsResponse response = kinesis.putRecords(b -> b.streamName(stream).records(request));
                List<PutRecordsRequestEntry> retry = new ArrayList<>();
                for (int k = 0; k < request.size(); k++) {
                    var e = response.records().get(k);
                    if (e.errorCode() != null) {
                        retry.add(request.get(k));
                    } else {
                        last.merge(e.shardId(), e.sequenceNumber(), Sequences::max);
                    }
                }
                entries = retry;
            }
        }
    }

    /** The all-in-one ({@code instances} 0) or every stage in {@code instances} processes, and a control plane. */
    static final class Deployment implements ChannelsBench.Stages {
        private final Path allInOne;
        private final Path services;
        private final Path dir;
        private final Map<String, String> config;
        private final int instances;
        private final List<AllInOne> ingest = new ArrayList<>();
        private final List<AllInOne> rest = new ArrayList<>();
        private AllInOne controlPlane;

        Deployment(Path allInOne, Path services, Path dir, Map<String, String> config, int instances) {
            this.allInOne = allInOne;
            this.services = services;
            this.dir = dir;
            this.config = config;
            this.instances = instances;
        }

        /** One instance of every stage, started. */
        static Deployment started(Path allInOne, Path services, Path dir, Map<String, String> config)
                throws Exception {
            Deployment d = new Deployment(allInOne, services, dir, config, 1);
            try {
                d.start();
            } catch (Exception e) {
                d.close();
                throw e;
            }
            return d;
        }

        @Override
        public List<AllInOne> processes() {
            return all();
        }

        @Override
        public Path commitLog() {
            return dir.resolve(instances == 0 ? "all-in-one" : "commit-1").resolve("all-in-one.log");
        }

        void start() throws Exception {
            if (instances == 0) {
                startIngest();
                return;
            }
            controlPlane = service("control-plane", "control-plane", config); // it imports the channel
            Map<String, String> stages = new LinkedHashMap<>(config);
            stages.remove("delivery.channels-file");
            Map<String, String> withRegistry = new LinkedHashMap<>(stages);
            withRegistry.put("delivery.schema-registry.endpoint-override", controlPlane.url());
            startIngest();
            ExecutorService starting = Executors.newFixedThreadPool(4);
            try {
                List<Future<AllInOne>> started = new ArrayList<>();
                for (String stage : List.of("convert", "commit", "dlq")) {
                    for (int i = 1; i <= instances; i++) {
                        String name = stage + "-" + i;
                        // dlq-service reads no schemas: an unknown delivery.* key would fail its start-up
                        Map<String, String> c = "dlq".equals(stage) ? stages : withRegistry;
                        started.add(starting.submit(() -> service(stage, name, c)));
                    }
                }
                for (Future<AllInOne> f : started) {
                    rest.add(f.get());
                }
            } finally {
                starting.shutdownNow();
            }
        }

        /** Every ingest instance at once, so none takes every shard before the others start. */
        void startIngest() throws Exception {
            if (instances == 0) {
                controlPlane = service(null, "all-in-one", config);
                ingest.add(controlPlane);
                return;
            }
            Map<String, String> c = new LinkedHashMap<>(config);
            c.remove("delivery.channels-file");
            ExecutorService starting = Executors.newFixedThreadPool(instances);
            try {
                List<Future<AllInOne>> started = new ArrayList<>();
                for (int i = 1; i <= instances; i++) {
                    String name = "ingest-" + i;
                    started.add(starting.submit(() -> service("ingest", name, c)));
                }
                for (Future<AllInOne> f : started) {
                    ingest.add(f.get());
                }
            } finally {
                starting.shutdownNow();
            }
        }

        void stopIngest() throws Exception {
            for (AllInOne p : ingest) {
                p.close();
            }
            ingest.clear();
        }

        private AllInOne service(String module, String name, Map<String, String> c) throws Exception {
            Path app = module == null ? allInOne
                    : services.resolve(module.equals("control-plane") ? module : module + "-service");
            Path work = dir.resolve(name);
            Files.createDirectories(work);
            return AllInOne.start(app, work, module == null ? "1g" : "512m", List.of(), c, 0);
        }

        @Override
        public String url() {
            return controlPlane.url();
        }

        List<AllInOne> all() {
            List<AllInOne> all = new ArrayList<>(ingest);
            all.addAll(rest);
            if (controlPlane != null && !all.contains(controlPlane)) {
                all.add(controlPlane);
            }
            return all;
        }

        long cpuNanos() throws Exception {
            long sum = 0;
            for (AllInOne p : all()) {
                sum += p.cpuNanos();
            }
            return sum;
        }

        @Override
        public void close() throws Exception {
            for (AllInOne p : all()) {
                p.close();
            }
        }
    }

    static String createDatabase(String postgres, String name) throws Exception {
        try (Connection c = DriverManager.getConnection(postgres); Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE " + name);
        }
        URI server = URI.create(postgres.substring("jdbc:".length()));
        return "jdbc:postgresql://" + server.getAuthority() + "/" + name
                + (server.getRawQuery() == null ? "" : "?" + server.getRawQuery());
    }

    static void dropDatabase(String postgres, String name) {
        try (Connection c = DriverManager.getConnection(postgres); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        } catch (Exception e) {
            System.err.println("dropping " + name + " failed: " + e.getMessage());
        }
    }
}
