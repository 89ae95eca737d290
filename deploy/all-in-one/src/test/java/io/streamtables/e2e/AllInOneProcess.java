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

/** The packaged all-in-one application run as its own JVM, so a test can kill it hard. */
final class AllInOneProcess implements ServiceUnderTest, AutoCloseable {

    /** From deploy/all-in-one or from the modules that run it too (with {@code project.root} set). */
    private static final Path JAR = Path.of(System.getProperty("project.root", "../.."))
            .resolve("deploy/all-in-one/target/quarkus-app/quarkus-run.jar").toAbsolutePath().normalize();

    private final Path workDir;
    private final Map<String, String> config;
    private final Path log;
    private Process process;
    private int port;
    private int managementPort;
    private int starts;
    private String heap = "1g";

    AllInOneProcess(Path workDir, Map<String, String> config) {
        this.workDir = workDir;
        this.config = config;
        this.log = workDir.resolve("all-in-one.log");
    }

    /** The JVM's largest heap ({@code -Xmx}) from the next start on; 1g unless set. */
    AllInOneProcess heap(String xmx) {
        this.heap = xmx;
        return this;
    }

    AllInOneProcess start() throws Exception {
        if (!Files.exists(JAR)) {
            throw new IllegalStateException(JAR + " is missing: run the package phase first");
        }
        port = Ports.free();
        managementPort = Ports.free();
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx" + heap,
                "-Dquarkus.http.port=" + port, "-Dquarkus.management.port=" + managementPort));
        config.forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.add("-jar");
        command.add(JAR.toString());
        starts++;
        process = new ProcessBuilder(command).directory(workDir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        awaitReady();
        return this;
    }

    private void awaitReady() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("all-in-one exited with " + process.exitValue() + "; log:\n" + tail());
            }
            try {
                HttpURLConnection c = (HttpURLConnection) URI.create(managementUrl() + "/q/health/ready")
                        .toURL().openConnection();
                c.setConnectTimeout(500);
                if (c.getResponseCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // starting
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("all-in-one not ready in 60 s; log:\n" + tail());
    }

    /** A hard stop: SIGKILL, no shutdown hooks. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** A stop as a container runtime asks for it: SIGTERM; returns how long the process took to exit. */
    java.time.Duration terminate(int graceSeconds) throws InterruptedException {
        long began = System.nanoTime();
        process.destroy();
        if (!process.waitFor(graceSeconds, TimeUnit.SECONDS)) {
            kill();
            throw new AssertionError("the all-in-one did not exit within " + graceSeconds + " s of SIGTERM");
        }
        return java.time.Duration.ofNanos(System.nanoTime() - began);
    }

    /** SIGSTOP for {@code seconds}, then SIGCONT: the process stalls as a paused VM or a long GC would stall it. */
    void pause(int seconds) throws Exception {
        signal("STOP");
        try {
            Thread.sleep(seconds * 1_000L);
        } finally {
            signal("CONT");
        }
    }

    private void signal(String name) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
        }
    }

    boolean isAlive() {
        return process != null && process.isAlive();
    }

    /** The service's API endpoint: the AWS-compatible APIs on POST /, and nothing else. */
    @Override
    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** Health and metrics: Quarkus's management interface, on a port of its own. */
    String managementUrl() {
        return "http://127.0.0.1:" + managementPort;
    }

    /** A GET on the management interface, e.g. {@code /q/metrics}. */
    String management(String path) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create(managementUrl() + path).toURL().openConnection();
        try (var in = c.getInputStream()) {
            return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }
    }

    int starts() {
        return starts;
    }

    @Override
    public String tail() throws IOException {
        List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    }

    String log() throws IOException {
        return Files.exists(log) ? Files.readString(log) : "";
    }

    @Override
    public void close() throws Exception {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                kill();
            }
        }
    }

    static Path tempDir(String name) throws IOException {
        Path base = Path.of("target", "e2e");
        Files.createDirectories(base);
        return Files.createTempDirectory(base.toAbsolutePath(), name + "-");
    }
}
