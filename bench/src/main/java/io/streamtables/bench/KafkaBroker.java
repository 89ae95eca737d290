package io.streamtables.bench;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A private single-node KRaft Kafka 4.3.1 broker on free ports, from the jars {@code scripts/peers.sh} installs
 * under {@code .peers/}, with the same settings (4 partitions per topic). Each run starts with empty topics, so
 * one scenario's chunks never reach the next one's consumers.
 */
final class KafkaBroker implements AutoCloseable {

    final String bootstrap;
    private final Process process;

    private KafkaBroker(Process process, String bootstrap) {
        this.process = process;
        this.bootstrap = bootstrap;
    }

    static KafkaBroker start(Path repo, Path dir) throws Exception {
        Path libs = repo.resolve(".peers/kafka-4.3.1/libs");
        if (!Files.isDirectory(libs)) {
            throw new IllegalStateException(libs + " is missing: run `scripts/peers.sh start kafka` once (it installs it)");
        }
        int port;
        int controller;
        try (ServerSocket a = new ServerSocket(0); ServerSocket b = new ServerSocket(0)) {
            port = a.getLocalPort();
            controller = b.getLocalPort();
        }
        Files.createDirectories(dir);
        Path conf = dir.resolve("kafka.properties");
        Files.writeString(conf, String.join("\n",
                "process.roles=broker,controller", "node.id=1",
                "controller.quorum.voters=1@127.0.0.1:" + controller,
                "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controller,
                "advertised.listeners=PLAINTEXT://127.0.0.1:" + port, "controller.listener.names=CONTROLLER",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "inter.broker.listener.name=PLAINTEXT", "log.dirs=" + dir.resolve("data"), "num.partitions=4",
                "auto.create.topics.enable=true", "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=1", "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1", "transaction.state.log.num.partitions=1",
                "share.coordinator.state.topic.replication.factor=1", "share.coordinator.state.topic.min.isr=1",
                "default.replication.factor=1", "min.insync.replicas=1", "group.initial.rebalance.delay.ms=0",
                "message.max.bytes=16777216", "replica.fetch.max.bytes=16777216", ""));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String cp = libs + "/*";
        String clusterId;
        do { // as Kafka's Uuid.randomUuid: an id starting with '-' would be read as an option by StorageTool
            byte[] id = new byte[16];
            new SecureRandom().nextBytes(id);
            clusterId = Base64.getUrlEncoder().withoutPadding().encodeToString(id);
        } while (clusterId.startsWith("-"));
        Process format = new ProcessBuilder(java, "-cp", cp, "kafka.tools.StorageTool", "format", "-t", clusterId,
                "-c", conf.toString()).redirectErrorStream(true).redirectOutput(dir.resolve("format.log").toFile())
                .start();
        if (!format.waitFor(60, TimeUnit.SECONDS) || format.exitValue() != 0) {
            throw new IllegalStateException("formatting Kafka's log dir failed; see " + dir.resolve("format.log"));
        }
        Process p = new ProcessBuilder(List.of(java, "-Xmx512m", "-Dlog4j2.level=WARN", "-cp", cp, "kafka.Kafka",
                conf.toString())).redirectErrorStream(true).redirectOutput(dir.resolve("kafka.log").toFile()).start();
        Runtime.getRuntime().addShutdownHook(new Thread(p::destroyForcibly));
        KafkaBroker broker = new KafkaBroker(p, "127.0.0.1:" + port);
        long deadline = System.currentTimeMillis() + 60_000;
        while (System.currentTimeMillis() < deadline) {
            if (!p.isAlive()) {
                throw new IllegalStateException("Kafka exited; see " + dir.resolve("kafka.log"));
            }
            try (Socket s = new Socket("127.0.0.1", port)) {
                return broker;
            } catch (IOException notYet) {
                Thread.sleep(200);
            }
        }
        broker.close();
        throw new IllegalStateException("Kafka did not answer in 60 s; see " + dir.resolve("kafka.log"));
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }
}
