package io.streamtables.commit;

import io.smallrye.common.annotation.Identifier;
import io.smallrye.reactive.messaging.IncomingInterceptor;
import io.streamtables.bus.RewindException;
import io.streamtables.bus.RewindRequest;
import io.streamtables.bus.RowChunk;
import io.streamtables.bus.Topics;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.OnOverflow;

/**
 * A chunk refused with a {@link RewindException} is published on the {@code rewinds} topic, to the shard's reader. The
 * refusal cannot travel back as the chunk's negative acknowledgement over Kafka (Kafka took the chunk long ago), so
 * it travels this one way in both modes: in memory too, where the nack also reaches the reader's sink, which ignores
 * it (BusChunkSink).
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
        if (rewind != null && message.getPayload() instanceof RowChunk chunk) {
            rewinds.send(new RewindRequest(chunk.token(), rewind.resumeAfter()));
        }
    }
}
