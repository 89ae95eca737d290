package io.streamtables.bus.kafka;

import io.smallrye.reactive.messaging.ClientCustomizer;
import io.streamtables.bus.DlqAck;
import io.streamtables.bus.DlqBatch;
import io.streamtables.bus.RecordChunk;
import io.streamtables.bus.RewindRequest;
import io.streamtables.bus.RowChunk;
import io.streamtables.bus.Topics;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.Config;

/**
 * The per-channel part of the Kafka configuration, applied to every Kafka client the connector creates (only
 * in the distributed mode: the all-in-one creates none), and the topic provisioned before its first client. The
 * rest is in META-INF/microprofile-config.properties.
 */
@ApplicationScoped
public class KafkaBusClients implements ClientCustomizer<Map<String, Object>> {

    /** Kafka's own default of max.request.size. */
    private static final int DEFAULT_MAX_REQUEST_SIZE = 1_048_576;
    private static final Map<String, Class<?>> TYPES = Map.of(
            Topics.RECORDS, RecordChunk.class,
            Topics.ROWS, RowChunk.class,
            Topics.DLQ, DlqBatch.class,
            Topics.DLQ_ACKS, DlqAck.class,
            Topics.REWINDS, RewindRequest.class);

    /** One consumer group per instance: every commit instance sees every ack, every reader every rewind. */
    private final String instance = UUID.randomUUID().toString();
    private final BusTopics topics = new BusTopics();

    @Override
    public Map<String, Object> customize(String channel, Config channelConfig, Map<String, Object> config) {
        Class<?> type = TYPES.get(channel);
        if (type == null) {
            return config;
        }
        topics.provision(channelConfig.getOptionalValue("topic", String.class).orElse(channel),
                maxRequestSize(channelConfig, config), config);
        if (config.containsKey(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG)) {
            config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
            config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, BusDeserializer.class.getName());
            config.put(BusDeserializer.TYPE, type.getName());
            if (channel.equals(Topics.DLQ_ACKS) || channel.equals(Topics.REWINDS)) {
                config.put(ConsumerConfig.GROUP_ID_CONFIG, channel + "-" + instance);
                config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest"); // older ones concern nobody alive
            }
        } else {
            config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, BusSerializer.class.getName());
            config.put(ProducerConfig.INTERCEPTOR_CLASSES_CONFIG, ShardKeys.class.getName());
        }
        return config;
    }

    /** The producers' max.request.size: the connector passes its attributes to consumers too. */
    private static int maxRequestSize(Config channelConfig, Map<String, Object> config) {
        Object set = config.get(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
        return set != null ? Integer.parseInt(set.toString())
                : channelConfig.getOptionalValue(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.class)
                        .orElse(DEFAULT_MAX_REQUEST_SIZE);
    }
}
