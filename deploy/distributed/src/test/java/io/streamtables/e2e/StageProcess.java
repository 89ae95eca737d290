package io.streamtables.e2e;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One packaged service ({@code <stage>-service/target/quarkus-app}, or {@code control-plane/target/quarkus-app}) run
 * as its own JVM; or, with {@code -Dstages.images=<registry>/<group>} (scripts/containers.sh), its container image
 * started by Testcontainers ({@link ServiceContainer}) on the host's network, with the same ports, environment and
 * {@code config/application.properties}.
 */
final class StageProcess implements ServiceUnderTest, AutoCloseable {

    private static final Path ROOT = Path.of(System.getProperty("project.root", "../..")).toAbsolutePath();
    /** Where the services' images are, e.g. 127.0.0.1:5000/streamtables; blank runs the packaged jars. */
    static final String IMAGES = System.getProperty("stages.images", "");
    /** The ports {@link #freePort} gave. */

    final String name;
    private final Path jar;
    private final Path log;
    private final int port;
    private final int managementPort;
    private Process process;
    private List<String> command;
    private Map<String, String> environment;
    private Path dir;
    private String image;
    private List<String> options;
    /** The running container, in place of {@link #process}, when the services run from images. */
    private ServiceContainer container;
    private int starts = 1;

    private StageProcess(String name, Path jar, Path log, int port, int managementPort) {
        this.name = name;
        this.jar = jar;
        this.log = log;
        this.port = port;
        this.managementPort = managementPort;
    }

    /**
     * Starts {@code <stage>-service} (or the control plane, stage {@code control-plane}) with this configuration
     * (system properties); {@link #awaitReady} next.
     */
    static StageProcess start(String stage, String name, Path workDir, Map<String, String> config) throws IOException {
        return start(stage, name, workDir, config, Map.of(), null);
    }

    /**
     * As a container runs it: with this environment, and {@code configFile} (given the service's own URL) as
     * {@code config/application.properties} in its working directory, where Quarkus reads it above the packaged
     * defaults.
     */
    static StageProcess start(String stage, String name, Path workDir, Map<String, String> config,
            Map<String, String> environment, Function<String, String> configFile) throws IOException {
        String module = stage.equals("control-plane") ? stage : stage + "-service";
        Path jar = ROOT.resolve(module + "/target/quarkus-app/quarkus-run.jar");
        if (IMAGES.isBlank() && !Files.exists(jar)) {
            throw new IllegalStateException(jar + " is missing: package the services first (mvn -B verify builds "
                    + "them before this module)");
        }
        int port = Ports.free();
        int managementPort = Ports.free();
        Path log = workDir.resolve(name + ".log");
        List<String> options = new ArrayList<>(List.of("-Xmx512m", "-XX:TieredStopAtLevel=1",
                "-Dquarkus.http.port=" + port, "-Dquarkus.management.port=" + managementPort));
        config.forEach((k, v) -> options.add("-D" + k + "=" + v));
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(options);
        command.add("-jar");
        command.add(jar.toString());
        Path dir = workDir.resolve(name);
        Files.createDirectories(dir.resolve("config"));
        StageProcess started = new StageProcess(name, jar, log, port, managementPort);
        if (configFile != null) {
            Files.writeString(dir.resolve("config/application.properties"), configFile.apply(started.url()));
        }
        started.command = command;
        started.environment = environment;
        started.dir = dir;
        if (!IMAGES.isBlank()) {
            started.image = IMAGES + "/" + module + ":" + ImageSettings.tag();
            started.options = options;
        }
        started.launch();
        return started;
    }

    /**
     * The image started by Testcontainers (it returns once the service is live): the options as JAVA_TOOL_OPTIONS
     * (every JVM reads them, whatever the image's entry point), the config directory mounted where the image reads
     * it, the container's output appended to the log.
     */
    private ServiceContainer container() {
        Map<String, String> env = new java.util.LinkedHashMap<>(environment);
        env.put("JAVA_TOOL_OPTIONS", String.join(" ", options.stream().map(StageProcess::quoted).toList()));
        return new ServiceContainer(image, containerName(), env, dir.resolve("config"),
                ImageSettings.workingDirectory() + "/config", managementUrl(), log).start();
    }

    /** An option as the JVM splits JAVA_TOOL_OPTIONS: at white space, but not within quotes. */
    static String quoted(String option) {
        if (!option.matches("(?s).*[\\s'\"].*")) {
            return option;
        }
        if (option.contains("'") && option.contains("\"")) {
            throw new IllegalArgumentException("JAVA_TOOL_OPTIONS cannot carry an option with both kinds of quote: "
                    + option);
        }
        return option.contains("'") ? '"' + option + '"' : "'" + option + "'";
    }

    private String containerName() {
        return "st-" + dir.getParent().getFileName() + "-" + name;
    }

    private void launch() throws IOException {
        if (image != null) {
            container = container();
            return;
        }
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().putAll(environment);
        process = builder.start();
    }

    /** A hard stop: SIGKILL, no shutdown hooks, nothing flushed. */
    void kill() throws InterruptedException {
        if (image != null) {
            container.kill();
            return;
        }
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + " did not die of SIGKILL");
        }
    }

    /** Starts the stage again, same port and configuration (after {@link #kill}); {@link #awaitReady} next. */
    StageProcess restart() throws IOException {
        if (alive()) {
            throw new IllegalStateException(name + " still runs");
        }
        Files.writeString(log, "%n--- restart %d of %s%n".formatted(starts, name),
                java.nio.file.StandardOpenOption.APPEND, java.nio.file.StandardOpenOption.CREATE);
        launch();
        starts++;
        return this;
    }

    /** How many times this stage was started. */
    int starts() {
        return starts;
    }

    /** SIGSTOP: every thread of the JVM halts (heartbeats included) until {@link #resume}. */
    void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    /** SIGCONT after {@link #pause}. */
    void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String signal) throws IOException, InterruptedException {
        if (image != null) {
            container.signal(signal);
            return;
        }
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
        }
    }

    boolean alive() {
        return image != null ? container.running() : process.isAlive();
    }

    /** The HTTP status of GET /q/health/ready, or -1 when the service does not answer. */
    int readiness() {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create(managementUrl() + "/q/health/ready").toURL().openConnection();
            c.setConnectTimeout(1_000);
            c.setReadTimeout(10_000);
            return c.getResponseCode();
        } catch (IOException e) {
            return -1;
        }
    }

    /** The Prometheus text of /q/metrics, or "" when the service does not answer. */
    String metrics() {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create(managementUrl() + "/q/metrics").toURL().openConnection();
            c.setConnectTimeout(1_000);
            c.setReadTimeout(10_000);
            try (var in = c.getInputStream()) {
                return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            }
        } catch (IOException e) {
            return "";
        }
    }

    /** The largest value of a metric (any tags) on /q/metrics, or NaN when none is there. */
    double metric(String name) {
        double max = Double.NaN;
        for (String line : metrics().split("\n")) {
            if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
                double v = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                max = Double.isNaN(max) ? v : Math.max(max, v);
            }
        }
        return max;
    }

    StageProcess awaitReady(int seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            if (!alive()) {
                throw new IllegalStateException(name + " (" + (image != null ? image : jar.getFileName()) + ") exited"
                        + (image != null ? "" : " with " + process.exitValue()) + "; log:\n" + tail());
            }
            try {
                HttpURLConnection c = (HttpURLConnection) URI.create(managementUrl() + "/q/health/ready").toURL()
                        .openConnection();
                c.setConnectTimeout(500);
                if (c.getResponseCode() == 200) {
                    return this;
                }
            } catch (IOException notYet) {
                // starting
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException(name + " not ready in " + seconds + " s; log:\n" + tail());
    }

    /** Health and metrics: Quarkus's management interface, on a port of its own. */
    String managementUrl() {
        return "http://127.0.0.1:" + managementPort;
    }

    @Override
    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** The JVM's process id (not for a container: its process is podman's). */
    long pid() {
        if (image != null) {
            throw new UnsupportedOperationException(name + " runs in a container");
        }
        return process.pid();
    }

    String log() throws IOException {
        return Files.exists(log) ? Files.readString(log) : "";
    }

    @Override
    public String tail() throws IOException {
        List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    /** The last log lines of each process, under its name. */
    static String tails(List<StageProcess> processes) throws IOException {
        StringBuilder all = new StringBuilder();
        for (StageProcess p : processes) {
            all.append("--- ").append(p.name).append('\n').append(p.tail()).append('\n');
        }
        return all.toString();
    }

    static void closeAll(List<StageProcess> processes) throws InterruptedException {
        for (StageProcess p : processes) {
            p.close();
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (image != null) {
            container.close(); // SIGTERM, as a container runtime stops it
            return;
        }
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
