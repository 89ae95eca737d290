package io.streamtables.e2e;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** One packaged stage service ({@code <stage>-service/target/quarkus-app}) run as its own JVM. */
final class StageProcess implements AutoCloseable {

    private static final Path ROOT = Path.of(System.getProperty("project.root", "../..")).toAbsolutePath();

    final String name;
    private final Path jar;
    private final Path log;
    private final int port;
    private final Process process;

    private StageProcess(String name, Path jar, Path log, int port, Process process) {
        this.name = name;
        this.jar = jar;
        this.log = log;
        this.port = port;
        this.process = process;
    }

    /** Starts {@code <stage>-service} with this configuration (system properties); {@link #awaitReady} next. */
    static StageProcess start(String stage, String name, Path workDir, Map<String, String> config) throws IOException {
        Path jar = ROOT.resolve(stage + "-service/target/quarkus-app/quarkus-run.jar");
        if (!Files.exists(jar)) {
            throw new IllegalStateException(jar + " is missing: package the services first (mvn -B verify builds "
                    + "them before this module)");
        }
        int port = freePort();
        Path log = workDir.resolve(name + ".log");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
                "-XX:TieredStopAtLevel=1", "-Dquarkus.http.port=" + port));
        config.forEach((k, v) -> command.add("-D" + k + "=" + v));
        command.add("-jar");
        command.add(jar.toString());
        Files.createDirectories(workDir.resolve(name));
        Process process = new ProcessBuilder(command).directory(workDir.resolve(name).toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        return new StageProcess(name, jar, log, port, process);
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    StageProcess awaitReady(int seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " (" + jar.getFileName() + ") exited with "
                        + process.exitValue() + "; log:\n" + tail());
            }
            try {
                HttpURLConnection c = (HttpURLConnection) URI.create(url() + "/q/health/ready").toURL()
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

    String url() {
        return "http://127.0.0.1:" + port;
    }

    long pid() {
        return process.pid();
    }

    String log() throws IOException {
        return Files.exists(log) ? Files.readString(log) : "";
    }

    String tail() throws IOException {
        List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
