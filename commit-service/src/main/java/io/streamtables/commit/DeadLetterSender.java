package io.streamtables.commit;

import io.streamtables.bus.DlqAck;
import io.streamtables.bus.DlqBatch;
import io.streamtables.bus.Topics;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.OnOverflow;

/**
 * The commit stage's way to dlq-service: sends each batch on the bus and waits for the acknowledgement of that
 * version (key and last sequence number). A send the bus refuses (a message over the broker's limit) fails the wait
 * at once, with the bus' reason, instead of leaving it to time out.
 */
@ApplicationScoped
public class DeadLetterSender implements DeadLetterOutbox.Dlq {

    /**
     * An ack normally comes in milliseconds; a publication that waits longer is tried again (it writes the same), well
     * within the shutdown's 20 s.
     */
    static final long ACK_TIMEOUT_MS = 10_000;

    private final Emitter<DlqBatch> bus;
    private final long timeoutMillis;
    /** Acknowledgements awaited, by object version. */
    private final Map<String, CompletableFuture<DlqAck>> waiting = new ConcurrentHashMap<>();

    @Inject
    public DeadLetterSender(@Channel(Topics.DLQ)
            @OnOverflow(value = OnOverflow.Strategy.BUFFER, bufferSize = 1024) Emitter<DlqBatch> bus) {
        this(bus, ACK_TIMEOUT_MS);
    }

    DeadLetterSender(Emitter<DlqBatch> bus, long timeoutMillis) {
        this.bus = bus;
        this.timeoutMillis = timeoutMillis;
    }

    @Incoming(Topics.DLQ_ACKS)
    public void acknowledged(DlqAck ack) {
        CompletableFuture<DlqAck> future = waiting.remove(ack.version());
        if (future != null) {
            future.complete(ack);
        }
    }

    @Override
    public void store(List<DlqBatch> batches) {
        List<CompletableFuture<DlqAck>> acks = new ArrayList<>();
        for (DlqBatch batch : batches) {
            CompletableFuture<DlqAck> ack = new CompletableFuture<>();
            waiting.put(DlqAck.version(batch), ack); // the ack of another version of the object is not this one's
            acks.add(ack);
            bus.send(batch).whenComplete((sent, refused) -> {
                if (refused != null) {
                    ack.completeExceptionally(refused);
                }
            });
        }
        try {
            for (CompletableFuture<DlqAck> ack : acks) {
                DlqAck result = ack.get(timeoutMillis, TimeUnit.MILLISECONDS);
                if (result.refused()) {
                    throw new DeadLetterOutbox.DeadLettersRefusedException(result.error());
                }
                if (!result.stored()) {
                    throw new IllegalStateException("dead-letter object " + result.objectKey() + " not stored: "
                            + result.error());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while storing dead letters", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the bus refused a batch of dead letters: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("dead letters not acknowledged in " + timeoutMillis + " ms", e);
        } finally {
            batches.forEach(b -> waiting.remove(DlqAck.version(b)));
        }
    }
}
