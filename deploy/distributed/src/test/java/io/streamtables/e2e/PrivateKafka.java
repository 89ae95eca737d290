package io.streamtables.e2e;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * A single-node KRaft broker of this test's own, run from the Kafka jars scripts/peers.sh installs
 * ({@code .peers/kafka-4.3.1/libs}, or {@code KAFKA_LIBS}), on free ports, with its log directory in the test's
 * work directory: the test may stop it and start it again on the same port and log directory, which the shared
 * broker of the other tests must never see.
 */
final class PrivateKafka implements AutoCloseable {

    private static final Path ROOT = Path.of(System.getProperty("project.root", "../..")).toAbsolutePath();

    private final Path libs;
    private final Path config;
    private final Path log;
    private final int port;
    private Process process;

    PrivateKafka(Path workDir) throws Exception {
        String env = System.getenv("KAFKA_LIBS");
        libs = env != null && !env.isBlank() ? Path.of(env) : ROOT.resolve(".peers/kafka-4.3.1/libs");
        Assumptions.assumeTrue(Files.isDirectory(libs), "no Kafka jars at " + libs
                + ": run `scripts/peers.sh start kafka` once (it installs them), or point KAFKA_LIBS at them");
        port = Ports.free();
        int controller = Ports.free();
        Path dir = workDir.resolve("kafka");
        Files.createDirectories(dir);
        config = dir.resolve("server.properties");
        log = dir.resolve("kafka.log");
        Files.writeString(config, """
                process.roles=broker,controller
                node.id=1
                controller.quorum.voters=1@127.0.0.1:%d
                listeners=PLAINTEXT://127.0.0.1:%d,CONTROLLER://127.0.0.1:%d
                advertised.listeners=PLAINTEXT://127.0.0.1:%d
                controller.listener.names=CONTROLLER
                listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
                inter.broker.listener.name=PLAINTEXT
                log.dirs=%s
                num.partitions=4
                auto.create.topics.enable=true
                offsets.topic.replication.factor=1
                offsets.topic.num.partitions=1
                transaction.state.log.replication.factor=1
                transaction.state.log.min.isr=1
                transaction.state.log.num.partitions=1
                share.coordinator.state.topic.replication.factor=1
                share.coordinator.state.topic.min.isr=1
                default.replication.factor=1
                min.insync.replicas=1
                group.initial.rebalance.delay.ms=0
                message.max.bytes=16777216
                replica.fetch.max.bytes=16777216
                """.formatted(controller, port, controller, port, dir.resolve("data")));
        Process format = new ProcessBuilder(java(), "-cp", libs + "/*", "kafka.tools.StorageTool", "format", "-t",
                clusterId(), "-c", config.toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        if (!format.waitFor(60, TimeUnit.SECONDS) || format.exitValue() != 0) {
            throw new IllegalStateException("formatting the private Kafka's storage failed:\n" + Files.readString(log));
        }
        start();
    }

    /** A KRaft cluster id: 16 random bytes, URL-safe base64 without padding (what StorageTool random-uuid prints). */
    private static String clusterId() {
        byte[] id = new byte[16];
        String encoded;
        do { // one starting with '-' would be read as an option by StorageTool
            new java.security.SecureRandom().nextBytes(id);
            encoded = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(id);
        } while (encoded.startsWith("-"));
        return encoded;
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    String bootstrap() {
        return "127.0.0.1:" + port;
    }

    /** Starts the broker (again) on its port and log directory; returns once it accepts connections. */
    PrivateKafka start() throws Exception {
        process = new ProcessBuilder(List.of(java(), "-Xmx384m", "-XX:TieredStopAtLevel=1", "-Dlog4j2.level=WARN",
                "-cp", libs + "/*", "kafka.Kafka", config.toString()))
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the private Kafka exited:\n" + Files.readString(log));
            }
            try (Socket s = new Socket("127.0.0.1", port)) {
                return this;
            } catch (IOException notYet) {
                Thread.sleep(200);
            }
        }
        throw new IllegalStateException("the private Kafka did not listen in 90 s:\n" + Files.readString(log));
    }

    /** Stops the broker: SIGTERM (a clean shutdown), SIGKILL if it takes longer than 30 s. */
    void stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
