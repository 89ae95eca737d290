package io.streamtables.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The benchmark harness: runs every scenario in its own JVM on the same generated records, one after the other,
 * and writes {@code results.json}, {@code results.md} (the tables, the ratios to the floor, the targets) and
 * {@code scale.png} into the output folder.
 *
 * <pre>
 * Bench [--quick] [--only=floor,convert,hostile,versions,commit,dlq,pipeline,scale,profile,e2e,dist,abuse] [--n=ROWS] [--out=DIR]
 *       [--only=channels [--channels=1000[,N...]] [--channels-modes=all-in-one[,distributed]]
 *       [--channels-active-freshness=10] [--channels-active-rate=2]]
 *       (not in the default run)
 *       [--app=QUARKUS_APP_DIR] [--kinesis=ENDPOINT] [--e2e-seconds=30,60,130] [--jvm="JVM OPTIONS"] [--warm=ROWS]
 * </pre>
 */
public final class Bench {

    static final List<String> ALL = List.of("floor", "convert", "hostile", "versions", "commit", "dlq", "pipeline", "scale", "profile",
            "e2e", "dist", "abuse");

    private final Path repo = Path.of("").toAbsolutePath();
    private final Path out;
    private final Path work;
    private final Map<String, String> opts;
    private final int n;
    private final boolean quick;
    /**
     * How the services' container images run the JVM: the collector options of the Quarkus base image
     * (ubi9/openjdk-17-runtime's run-java.sh; its -XX:MaxRAMPercentage is replaced by -Xmx here), then the
     * options our images add (quarkus.jib.jvm-additional-arguments in pom.xml), which give the heap room again
     * (docs/BENCHMARKS.md "How to run").
     */
    static final String CONTAINER_JVM = "-XX:+UseParallelGC -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=20 "
            + "-XX:GCTimeRatio=4 -XX:AdaptiveSizePolicyWeight=90 -XX:+ExitOnOutOfMemoryError "
            + "-XX:GCTimeRatio=99 -XX:MinHeapFreeRatio=40 -XX:MaxHeapFreeRatio=70";

    /** JVM options of the floor's JVM and of the all-in-one (--jvm, default {@link #CONTAINER_JVM}): the same for both. */
    private final List<String> jvm;
    private final List<Result> results = new ArrayList<>();
    private Path app;
    private String classpath;

    private Bench(Map<String, String> opts) {
        this.opts = opts;
        this.quick = opts.containsKey("quick");
        this.n = Integer.parseInt(opts.getOrDefault("n", quick ? "30000" : "100000"));
        this.out = Path.of(opts.getOrDefault("out", "bench/results")).toAbsolutePath();
        this.work = Path.of(opts.getOrDefault("work", "bench/target/bench-work")).toAbsolutePath();
        this.jvm = Scenario.jvm(opts.getOrDefault("jvm", CONTAINER_JVM));
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new LinkedHashMap<>();
        for (String a : args) {
            String s = a.replaceFirst("^--", "");
            int eq = s.indexOf('=');
            opts.put(eq < 0 ? s : s.substring(0, eq), eq < 0 ? "" : s.substring(eq + 1));
        }
        new Bench(opts).run();
    }

    /** S3Proxy for the all-in-one's DLQ bucket in the pipeline, scale, profile and e2e scenarios. */
    private S3Proxy appS3;

    private void run() throws Exception {
        Set<String> only = new LinkedHashSet<>(opts.containsKey("only")
                ? Arrays.asList(opts.get("only").split(",")) : ALL);
        Files.createDirectories(out);
        deleteTree(work);
        Files.createDirectories(work);
        classpath = snapshotClasspath();
        log("machine: " + Machine.describe());
        log("records per scenario: " + n + " (~1 KB JSON each); output " + out);
        if (only.contains("pipeline") || only.contains("scale") || only.contains("profile") || only.contains("e2e")
                || only.contains("dist") || only.contains("soak") || only.contains("abuse") || only.contains("channels")) {
            app = snapshotApp();
            // the all-in-one checks its DLQ bucket before a channel is ACTIVE, and S3 for readiness
            appS3 = S3Proxy.start(repo, work);
        }
        try {
            runScenarios(only);
        } finally {
            if (appS3 != null) {
                appS3.close();
            }
        }
        Report.write(out, results, n, Machine.describe());
        log("wrote " + out.resolve("results.md") + ", results.json, scale.png");
    }

    private void runScenarios(Set<String> only) throws Exception {
        // The two figures the main ratios compare run alternately, several times: the median of each is used.
        int reps = Integer.parseInt(opts.getOrDefault("reps", quick ? "1" : "3"));
        for (int rep = 1; rep <= reps; rep++) {
            if (only.contains("floor")) {
                tag(fork("floor", "3g", jvm, "n=" + n, "hours=24", "warm=" + warm()), rep);
                // the floor plus the decoding the pipeline cannot leave out: its ratio's lower bound
                tag(fork("floor", "3g", jvm, "n=" + n, "hours=24", "warm=" + warm(), "decode=true"), rep);
            }
            if (only.contains("pipeline")) {
                tag(pipeline("shards=4", "hours=24"), rep);
            }
        }
        if (only.contains("floor")) {
            for (int hours : new int[] {1, 168}) {
                fork("floor", "3g", jvm, "n=" + n, "hours=" + hours, "warm=" + warm());
            }
        }
        if (only.contains("convert")) {
            // the services' JVM options: with G1's defaults the full GC before each measured pass shrinks the heap,
            // and the pass pays for growing it again (a fast decoder measured 2-5 x slower)
            fork("convert", "2g", jvm, "n=" + n, "hours=24");
        }
        if (only.contains("hostile")) {
            fork("hostile", "2g", List.of());
        }
        if (only.contains("versions")) {
            fork("versions", "2g", List.of(), "versions=" + (quick ? 500 : 2000), "rounds=" + (quick ? 5 : 20));
        }
        if (only.contains("commit")) {
            fork("commit", "3g", List.of(), "n=" + n, "hours=24", "shards=4");
        }
        if (only.contains("dlq")) {
            try (S3Proxy s3 = S3Proxy.start(repo, work)) {
                fork("dlq", "1g", List.of(), "batches=" + (quick ? 50 : 200), "per_batch=1000",
                        s3 == null ? "s3=" : "s3=" + s3.endpoint);
            }
        }
        if (only.contains("pipeline")) {
            // What-if for the RSS target: the same run with a smaller heap limit.
            for (Result r : pipeline("shards=4", "hours=24", "xmx=640m")) {
                r.put("scenario", "pipeline_xmx640m");
            }
            // The decoder's share of the pipeline: the same run with the reference decoder alone.
            for (Result r : pipeline("shards=4", "hours=24", "decoder=reference")) {
                r.put("scenario", "pipeline_reference_decoder");
            }
        }
        if (only.contains("scale")) {
            for (int hours : new int[] {1, 24, 168}) {
                for (int shards : quick ? new int[] {1, 4, 16} : new int[] {1, 4, 16, 64}) {
                    Result r = first(pipeline("shards=" + shards, "hours=" + hours));
                    if (r != null) {
                        r.put("scenario", "scale");
                    }
                }
            }
        }
        if (only.contains("profile")) {
            profile();
        }
        if (only.contains("e2e")) {
            e2e();
        }
        if (only.contains("dist")) {
            dist();
        }
        if (only.contains("soak")) {
            soak();
        }
        if (only.contains("abuse")) {
            fork("abuse", "1g", List.of(), "app=" + app, "connections=600", "seconds=15");
        }
        if (only.contains("channels")) {
            channels();
        }
    }

    /**
     * The many-channels scenario: each count of {@code --channels} after the other, on the all-in-one and, with
     * {@code --channels-modes=all-in-one,distributed}, on the distributed services (Kafka, PostgreSQL).
     */
    private void channels() throws Exception {
        for (String mode : opts.getOrDefault("channels-modes", "all-in-one").split(",")) {
            List<String> target = new ArrayList<>(List.of("app=" + app));
            KafkaBroker kafka = null;
            if (mode.equals("distributed")) {
                String postgres = postgres();
                Path services = services();
                if (postgres == null || services == null) {
                    continue;
                }
                kafka = KafkaBroker.start(repo, work.resolve("kafka-channels"));
                target.addAll(List.of("services=" + services, "kafka=" + kafka.bootstrap, "postgres=" + postgres));
            }
            try {
                for (String channels : opts.getOrDefault("channels", "1000").split(",")) {
                    List<String> args = new ArrayList<>(target);
                    args.addAll(List.of("channels=" + channels, "seconds=" + opts.getOrDefault("channels-seconds", "30"),
                            "xmx=2g", "active-freshness=" + opts.getOrDefault("channels-active-freshness", "10"),
                            "active-rate=" + opts.getOrDefault("channels-active-rate", "2")));
                    fork("channels", "1g", List.of(), args.toArray(String[]::new));
                }
            } finally {
                if (kafka != null) {
                    kafka.close();
                }
            }
        }
    }

    /** The PostgreSQL of the distributed scenarios, or null (logged) when there is none. */
    private String postgres() {
        String postgres = System.getenv().getOrDefault("POSTGRES_URL",
                "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(postgres)) {
            log("PostgreSQL at " + postgres);
            return postgres;
        } catch (java.sql.SQLException e) {
            log("distributed runs skipped: no PostgreSQL at " + postgres + ": " + e.getMessage());
            return null;
        }
    }

    /** The packaged services, copied (a jar replaced under a running JVM loses classes), or null (logged). */
    private Path services() throws IOException {
        Path services = work.resolve("services");
        for (String module : DistributedBench.MODULES) {
            Path from = repo.resolve(module + "/target/quarkus-app");
            if (!Files.exists(from.resolve("quarkus-run.jar"))) {
                log("distributed runs skipped: " + from + "/quarkus-run.jar is missing (bench/run.sh packages the "
                        + "services)");
                return null;
            }
            if (!Files.exists(services.resolve(module))) {
                copyTree(from, services.resolve(module));
            }
        }
        return services;
    }

    /**
     * The soak, not in the default run (it takes {@code --soak-seconds}, default 900): freshness 1 s, 24
     * partitions, a steady rate, table maintenance off and on side by side, so that both see the same machine (the
     * two take about 1.2 of 2 cores) and the run takes the soak's length once.
     */
    private void soak() throws Exception {
        List<java.util.concurrent.CompletableFuture<List<Result>>> runs = new ArrayList<>();
        for (boolean maintenance : new boolean[] {false, true}) {
            runs.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return fork("soak", "1g", List.of(), "app=" + app, "maintenance=" + maintenance, "hours=24",
                            "shards=4", "seconds=" + opts.getOrDefault("soak-seconds", "900"),
                            "rate=" + opts.getOrDefault("soak-rate", "400"));
                } catch (Exception e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            }));
            Thread.sleep(5_000); // not both JVMs starting at once
        }
        runs.forEach(java.util.concurrent.CompletableFuture::join);
    }

    private static void tag(List<Result> rs, int rep) {
        rs.forEach(r -> r.put("rep", rep));
    }

    /** The pipeline scenario: the all-in-one at freshness 10 s with the run's JVM options. */
    private List<Result> pipeline(String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("app=" + app, "n=" + n, "warm=" + warm(), "freshness=10",
                "jvm=" + String.join(" ", jvm), "limit=" + opts.getOrDefault("limit", "10000")));
        all.addAll(Arrays.asList(args));
        return fork("pipeline", "2g", List.of(), all.toArray(String[]::new));
    }

    /** Rows written before the measured ones, by the floor and by the pipeline alike (--warm). */
    private int warm() {
        // long enough for the JIT to have compiled the hot paths of both: the ratios compare steady states
        return opts.containsKey("warm") ? Integer.parseInt(opts.get("warm")) : 2 * n;
    }

    /** The same runs with JFR: the hot spots of the pipeline and of the stages, summed per method. */
    private void profile() throws Exception {
        Path dir = out.resolve("profiles");
        Files.createDirectories(dir);
        Result p = first(pipeline("shards=4", "hours=24", "jfr=" + work.resolve("pipeline.jfr")));
        if (p != null) {
            p.put("scenario", "profile_pipeline");
            JfrSummary.write(work.resolve("pipeline.jfr"), dir.resolve("pipeline.txt"));
            if (Files.exists(work.resolve("pipeline-heap.txt"))) {
                Files.copy(work.resolve("pipeline-heap.txt"), dir.resolve("pipeline-heap.txt"),
                        StandardCopyOption.REPLACE_EXISTING);
            }
        }
        for (String[] s : new String[][] {{"floor", "3g"}, {"convert", "2g"}, {"commit", "3g"}}) {
            List<Result> rs = fork(s[0], s[1], List.of("-Dbench.jfr=" + work.resolve(s[0] + ".jfr")), "n=" + n,
                    "hours=24", "shards=4");
            rs.forEach(r -> r.put("scenario", "profile_" + r.values.get("scenario")));
            Path txt = work.resolve(s[0] + ".txt");
            if (Files.exists(txt)) {
                Files.copy(txt, dir.resolve(s[0] + ".txt"), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    private void e2e() throws Exception {
        String[] seconds = opts.getOrDefault("e2e-seconds", quick ? "20,30,70" : "30,60,130").split(",");
        int[] freshness = {1, 10, 60};
        String endpoint = opts.get("kinesis");
        EndToEndBench.KinesisLocal local = null;
        try {
            if (endpoint == null) {
                local = new EndToEndBench.KinesisLocal(repo, work.resolve("kinesis-local.log"));
                endpoint = local.endpoint;
            }
            for (int i = 0; i < freshness.length; i++) {
                fork("e2e", "1g", List.of(), "app=" + app, "kinesis=" + endpoint, "freshness=" + freshness[i],
                        "seconds=" + seconds[i], "rate=" + opts.getOrDefault("e2e-rate", "250"), "batch=50");
            }
        } catch (IllegalStateException e) {
            log("e2e skipped: " + e.getMessage());
        } finally {
            if (local != null) {
                local.close();
            }
        }
    }

    /**
     * The distributed mode with 1 and 2 instances of every stage beside the all-in-one, on a private kinesis-local
     * and Kafka broker and a database of their own on the PostgreSQL server ({@code POSTGRES_URL}).
     */
    private void dist() throws Exception {
        String postgres = postgres();
        Path services = services();
        if (postgres == null || services == null) {
            return;
        }
        try (EndToEndBench.KinesisLocal kinesis = new EndToEndBench.KinesisLocal(repo, work.resolve("kinesis-dist.log"));
                KafkaBroker kafka = KafkaBroker.start(repo, work.resolve("kafka"))) {
            for (String instances : opts.getOrDefault("dist-instances", "0,1,2").split(",")) {
                fork("dist", "1g", List.of(), "app=" + app, "services=" + services, "kinesis=" + kinesis.endpoint,
                        "kafka=" + kafka.bootstrap, "postgres=" + postgres, "instances=" + instances,
                        "backlog=" + opts.getOrDefault("dist-backlog", quick ? "10000" : "20000"),
                        "rate=" + opts.getOrDefault("dist-rate", "200"), "seconds=" + (quick ? 15 : 30));
            }
        } catch (IllegalStateException e) {
            log("dist skipped: " + e.getMessage());
        }
    }

    /**
     * The scenarios' class path, with this project's own jars copied: other builds on the machine reinstall
     * them in ~/.m2 while the benchmark runs, and a jar replaced under a running JVM loses classes.
     */
    private String snapshotClasspath() throws IOException {
        Path lib = work.resolve("lib");
        Files.createDirectories(lib);
        List<String> out = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path p = Path.of(entry);
            if (entry.contains("/io/streamtables/") && Files.isRegularFile(p)) {
                Path copy = lib.resolve(p.getFileName());
                Files.copy(p, copy, StandardCopyOption.REPLACE_EXISTING);
                out.add(copy.toString());
            } else if (Files.isDirectory(p) && p.toString().endsWith("classes")) {
                Path copy = lib.resolve("bench-classes");
                copyTree(p, copy);
                out.add(copy.toString());
            } else {
                out.add(entry);
            }
        }
        return String.join(java.io.File.pathSeparator, out);
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(f, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    /** A copy of the packaged all-in-one, so that a rebuild by someone else during the run changes nothing. */
    private Path snapshotApp() throws IOException {
        Path from = opts.containsKey("app") ? Path.of(opts.get("app"))
                : repo.resolve("deploy/all-in-one/target/quarkus-app");
        if (!Files.exists(from.resolve("quarkus-run.jar"))) {
            throw new IllegalStateException(from + "/quarkus-run.jar is missing: package deploy/all-in-one first");
        }
        Path to = work.resolve("app");
        copyTree(from, to);
        log("all-in-one: " + from + " (copied to " + to + ")");
        return to;
    }

    private static Result first(List<Result> rs) {
        return rs.isEmpty() ? null : rs.get(0);
    }

    /**
     * Runs one scenario in a fresh JVM and collects its RESULT lines; a failed run is run once more (the
     * machine is shared: a process of the run can be killed by others' clean-ups), then logged, not fatal.
     */
    private List<Result> fork(String scenario, String xmx, List<String> jvmArgs, String... args) throws Exception {
        List<Result> rs = forkOnce(scenario, xmx, jvmArgs, args);
        if (rs.isEmpty()) {
            log("  retrying once");
            rs = forkOnce(scenario, xmx, jvmArgs, args);
        }
        return rs;
    }

    private List<Result> forkOnce(String scenario, String xmx, List<String> jvmArgs, String... args) throws Exception {
        Path dir = Files.createTempDirectory(work, scenario + "-");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + xmx, "-Djava.awt.headless=true",
                "-Djava.util.logging.manager=org.jboss.logmanager.LogManager"));
        cmd.addAll(jvmArgs);
        if (appS3 != null) {
            cmd.add("-D" + AppSetup.S3_PROPERTY + "=" + appS3.endpoint);
        }
        cmd.addAll(List.of("-cp", classpath, Scenario.class.getName(), scenario,
                "dir=" + dir));
        cmd.addAll(Arrays.asList(args));
        String label = scenario + " " + String.join(" ", args).replace(work.toString(), "$WORK");
        double load0 = Machine.loadAverage();
        log("run " + label + " (load " + load0 + ")");
        Process p = new ProcessBuilder(cmd).redirectError(dir.resolve("stderr.log").toFile()).start();
        Thread stopChild = new Thread(p::destroy);
        Runtime.getRuntime().addShutdownHook(stopChild);
        List<Result> rs = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null;) {
                if (line.startsWith("RESULT ")) {
                    Result res = Result.parse(line);
                    res.put("load_before", load0);
                    res.put("load_after", Machine.loadAverage());
                    rs.add(res);
                    log("  " + Report.brief(res));
                }
            }
        }
        boolean ended = p.waitFor(30, TimeUnit.MINUTES);
        Runtime.getRuntime().removeShutdownHook(stopChild);
        if (!ended || p.exitValue() != 0) {
            log("  FAILED (exit " + (p.isAlive() ? "timeout" : p.exitValue()) + "), see " + dir.resolve("stderr.log"));
            p.destroyForcibly();
        } else if (!opts.containsKey("keep")) {
            deleteTree(dir.resolve("catalog"));
            deleteTree(dir.resolve("warehouse"));
        }
        synchronized (results) {
            results.addAll(rs);
        }
        return rs;
    }

    static void log(String s) {
        System.out.println(Instant.now().toString().substring(11, 19) + " " + s);
        System.out.flush();
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }

    /** S3Proxy 4.1.0 (the jar scripts/peers.sh installs under .peers/) on a free port, for the DLQ stage. */
    static final class S3Proxy implements AutoCloseable {
        final Process process;
        final String endpoint;

        private S3Proxy(Process process, String endpoint) {
            this.process = process;
            this.endpoint = endpoint;
        }

        static S3Proxy start(Path repo, Path work) throws Exception {
            Path jar = repo.resolve(".peers/s3proxy-4.1.0-jar-with-dependencies.jar");
            if (!Files.exists(jar)) {
                log("S3Proxy jar missing (" + jar + "): the DLQ stage runs without the network part");
                return null;
            }
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            Path conf = work.resolve("s3proxy.conf");
            Files.writeString(conf, "s3proxy.endpoint=http://127.0.0.1:" + port + "\ns3proxy.authorization=aws-v2-or-v4\n"
                    + "s3proxy.identity=test\ns3proxy.credential=test\ns3proxy.ignore-unknown-headers=true\n"
                    + "jclouds.provider=transient\n");
            Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx512m", "-jar", jar.toString(), "--properties", conf.toString())
                    .redirectErrorStream(true).redirectOutput(work.resolve("s3proxy.log").toFile()).start();
            for (int i = 0; i < 120; i++) {
                try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
                    return new S3Proxy(p, "http://127.0.0.1:" + port);
                } catch (IOException notYet) {
                    Thread.sleep(250);
                }
            }
            p.destroyForcibly();
            log("S3Proxy did not start: the DLQ stage runs without the network part");
            return null;
        }

        @Override
        public void close() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
