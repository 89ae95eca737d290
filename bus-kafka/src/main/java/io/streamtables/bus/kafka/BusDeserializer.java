package io.streamtables.bus.kafka;

import java.io.IOException;
import java.util.Map;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;

/** Kafka bytes to the bus message type of the channel, set by {@link KafkaBusClients} as {@link #TYPE}. */
public class BusDeserializer implements Deserializer<Object> {

    public static final String TYPE = "streamtables.bus.type";

    private Class<?> type;

    @Override
    public void configure(Map<String, ?> configs, boolean isKey) {
        Object name = configs.get(TYPE);
        if (name == null) {
            throw new IllegalStateException(BusDeserializer.class.getName() + " needs " + TYPE
                    + ": the topic is not one of io.streamtables.bus.Topics");
        }
        try {
            type = Class.forName(name.toString(), false, Thread.currentThread().getContextClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("unknown bus message type " + name, e);
        }
    }

    @Override
    public Object deserialize(String topic, byte[] data) {
        if (data == null) {
            return null;
        }
        try {
            return BusCodec.MAPPER.readValue(data, type);
        } catch (IOException e) {
            // the message only: a payload must never reach the log
            throw new SerializationException("cannot decode a " + type.getSimpleName() + " from topic " + topic
                    + " (" + data.length + " bytes): " + e.getClass().getSimpleName(), e);
        }
    }
}
