package io.streamtables.bus.kafka;

import io.streamtables.bus.DlqAck;
import io.streamtables.bus.DlqBatch;
import io.streamtables.bus.RecordChunk;
import io.streamtables.bus.RewindRequest;
import io.streamtables.bus.RowChunk;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Keys every bus record before it is serialized: a chunk by {@code channelArn/shardId}
 * ({@link io.streamtables.bus.CommitToken#key()}), so one shard's chunks stay in one partition, in order, and
 * reach one commit instance at a time. Done here rather than in the stages, which stay bus-agnostic.
 */
public class ShardKeys implements ProducerInterceptor<Object, Object> {

    static String keyOf(Object message) {
        if (message instanceof RecordChunk c) {
            return c.token().key();
        } else if (message instanceof RowChunk c) {
            return c.token().key();
        } else if (message instanceof RewindRequest r) {
            return r.refused().key();
        } else if (message instanceof DlqBatch b) {
            return b.objectKey();
        } else if (message instanceof DlqAck a) {
            return a.objectKey();
        }
        return null;
    }

    @Override
    public ProducerRecord<Object, Object> onSend(ProducerRecord<Object, Object> record) {
        if (record.key() != null) {
            return record;
        }
        return new ProducerRecord<>(record.topic(), record.partition(), record.timestamp(), keyOf(record.value()),
                record.value(), record.headers());
    }

    @Override
    public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
    }

    @Override
    public void close() {
    }

    @Override
    public void configure(Map<String, ?> configs) {
    }
}
