package io.streamtables.bus.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Against the broker of scripts/peers.sh (KAFKA_BOOTSTRAP_SERVERS, default 127.0.0.1:9092); skipped without one. */
class BusTopicsTest {

    private static final String KAFKA = Optional.ofNullable(System.getenv("KAFKA_BOOTSTRAP_SERVERS"))
            .orElse("127.0.0.1:9092");
    private static final int BUS = 16_777_216;
    private static Admin admin;

    private final String topic = "bus-topics-test-" + UUID.randomUUID();
    private final Map<String, Object> clientConfig = Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, KAFKA,
            "key.serializer", "org.apache.kafka.common.serialization.StringSerializer", "acks", "all");

    @BeforeAll
    static void broker() {
        admin = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, brokerOrSkip()));
    }

    /** The broker's bootstrap servers; the test is skipped when none answers. */
    static String brokerOrSkip() {
        String[] hostPort = KAFKA.split(",")[0].split(":");
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])), 1_000);
        } catch (IOException e) {
            Assumptions.abort("no Kafka broker at " + KAFKA + " (scripts/peers.sh start kafka)");
        }
        return KAFKA;
    }

    @AfterAll
    static void close() {
        if (admin != null) {
            admin.close();
        }
    }

    @Test
    void aMissingTopicIsCreatedTakingTheBusMessages() throws Exception {
        assertEquals(BusTopics.Outcome.CREATED, new BusTopics().provision(topic, BUS, clientConfig));

        ConfigEntry entry = maxMessageBytes();
        assertEquals(Integer.toString(BUS), entry.value());
        assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, entry.source(), "set on the topic itself");
    }

    @Test
    void aTopicTakingLessIsRaised() throws Exception {
        create(1_048_576);

        BusTopics topics = new BusTopics();
        assertEquals(BusTopics.Outcome.RAISED, topics.provision(topic, BUS, clientConfig));
        assertEquals(BusTopics.Outcome.SKIPPED, topics.provision(topic, BUS, clientConfig), "once per process");

        assertEquals(Integer.toString(BUS), maxMessageBytes().value());
    }

    @Test
    void aTopicTakingMoreIsLeftAlone() throws Exception {
        create(2 * BUS);

        assertEquals(BusTopics.Outcome.KEPT, new BusTopics().provision(topic, BUS, clientConfig));

        assertEquals(Integer.toString(2 * BUS), maxMessageBytes().value());
    }

    /** No broker: a warning, no exception, and the next topics are not tried (a start waits once, not per topic). */
    @Test
    @Timeout(60)
    void noBrokerDelaysAStartOnce() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        BusTopics topics = new BusTopics();
        Map<String, Object> nowhere = Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + closed);
        assertEquals(BusTopics.Outcome.FAILED, topics.provision("records", BUS, nowhere));
        assertEquals(BusTopics.Outcome.SKIPPED, topics.provision("rows", BUS, nowhere));
    }

    private void create(int maxMessageBytes) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, Optional.empty(), Optional.empty())
                .configs(Map.of(BusTopics.MAX_MESSAGE_BYTES, Integer.toString(maxMessageBytes)))))
                .all().get(30, TimeUnit.SECONDS);
    }

    private ConfigEntry maxMessageBytes() throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        return admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource)
                .get(BusTopics.MAX_MESSAGE_BYTES);
    }
}
