package io.streamtables.bus.kafka;

import com.fasterxml.jackson.core.JsonProcessingException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serializer;

/** Any bus message to Kafka bytes ({@link BusCodec}). */
public class BusSerializer implements Serializer<Object> {

    @Override
    public byte[] serialize(String topic, Object message) {
        if (message == null) {
            return null;
        }
        try {
            return BusCodec.MAPPER.writeValueAsBytes(message);
        } catch (JsonProcessingException e) {
            throw new SerializationException("cannot encode a " + message.getClass().getSimpleName() + " for topic "
                    + topic + ": " + e.getOriginalMessage(), e);
        }
    }
}
