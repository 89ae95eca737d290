package io.streamtables.bus.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smallrye.config.SmallRyeConfigBuilder;
import io.streamtables.bus.Topics;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigResource;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;

class KafkaBusClientsTest {

    @Test
    void aProducerOfABusTopicSerializesItsMessagesAndProvisionsTheTopicFirst() throws Exception {
        String kafka = BusTopicsTest.brokerOrSkip();
        String topic = "bus-clients-test-" + UUID.randomUUID();
        Config channel = new SmallRyeConfigBuilder()
                .withDefaultValue("topic", topic)
                .withDefaultValue(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, "16777216").build();
        Map<String, Object> producer = new HashMap<>(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka));

        Map<String, Object> customized = new KafkaBusClients().customize(Topics.ROWS, channel, producer);

        assertEquals(BusSerializer.class.getName(), customized.get(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG));
        try (Admin admin = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka))) {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            assertEquals("16777216", admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS)
                    .get(resource).get(BusTopics.MAX_MESSAGE_BYTES).value());
        }
    }

    @Test
    void anAckConsumerHasAGroupOfItsOwnPerInstance() {
        String kafka = BusTopicsTest.brokerOrSkip();
        Config channel = new SmallRyeConfigBuilder().withDefaultValue("topic", "bus-clients-test-" + UUID.randomUUID())
                .build();
        Map<String, Object> consumer = new HashMap<>(Map.of(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, "x",
                CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka, ProducerConfig.MAX_REQUEST_SIZE_CONFIG, "16777216"));

        Map<String, Object> customized = new KafkaBusClients().customize(Topics.DLQ_ACKS, channel, consumer);

        assertEquals(BusDeserializer.class.getName(), customized.get(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG));
        assertTrue(customized.get(ConsumerConfig.GROUP_ID_CONFIG).toString().startsWith(Topics.DLQ_ACKS + "-"));
        assertEquals("latest", customized.get(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG));
    }
}
