package io.streamtables.commit;

import io.smallrye.common.annotation.Identifier;
import io.smallrye.reactive.messaging.IncomingInterceptor;
import io.smallrye.reactive.messaging.kafka.api.IncomingKafkaRecordMetadata;
import io.streamtables.bus.RewindException;
import io.streamtables.bus.RewindRequest;
import io.streamtables.bus.RowChunk;
import io.streamtables.bus.Topics;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.OnOverflow;

/**
 * A chunk refused with a {@link RewindException} that came over Kafka: the refusal cannot travel back to the
 * reader as the chunk's negative acknowledgement (Kafka took the chunk long ago), so it is published on the
 * {@code rewinds} topic. In memory, the nack itself reaches the reader and nothing is sent here.
 */
@ApplicationScoped
@Identifier(Topics.ROWS)
public class RewindOverBus implements IncomingInterceptor {

    private final Emitter<RewindRequest> rewinds;

    public RewindOverBus(@Channel(Topics.REWINDS) @OnOverflow(value = OnOverflow.Strategy.BUFFER, bufferSize = 1024)
            Emitter<RewindRequest> rewinds) {
        this.rewinds = rewinds;
    }

    @Override
    public void onMessageAck(org.eclipse.microprofile.reactive.messaging.Message<?> message) {
    }

    @Override
    public void onMessageNack(org.eclipse.microprofile.reactive.messaging.Message<?> message, Throwable failure) {
        RewindException rewind = RewindException.in(failure);
        if (rewind != null && message.getPayload() instanceof RowChunk chunk
                && message.getMetadata(IncomingKafkaRecordMetadata.class).isPresent()) {
            rewinds.send(new RewindRequest(chunk.token(), rewind.resumeAfter()));
        }
    }
}
