package io.streamtables.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.bus.DlqAck;
import io.streamtables.bus.DlqBatch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.junit.jupiter.api.Test;

/** How the commit stage waits for dlq-service: the ack of the version it sent, or the bus' refusal at once. */
class DeadLetterSenderTest {

    /** The bus as an emitter sees it: each send answered by {@code answer} (a broker's acceptance or refusal). */
    static final class Bus implements Emitter<DlqBatch> {
        final List<DlqBatch> sent = new ArrayList<>();
        final Function<DlqBatch, CompletionStage<Void>> answer;

        Bus(Function<DlqBatch, CompletionStage<Void>> answer) {
            this.answer = answer;
        }

        @Override
        public CompletionStage<Void> send(DlqBatch batch) {
            sent.add(batch);
            return answer.apply(batch);
        }

        @Override
        public <M extends Message<? extends DlqBatch>> void send(M message) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void complete() {
        }

        @Override
        public void error(Exception e) {
        }

        @Override
        public boolean isCancelled() {
            return false;
        }

        @Override
        public boolean hasRequests() {
            return true;
        }
    }

    private static DlqBatch batch(String... sequences) {
        return new DlqBatch("arn:aws:kinesis:us-east-1:000000000000:channel/c", "errors/k.jsonl",
                java.util.Arrays.stream(sequences).map(s -> CommitFixture.reject(s, 1L)).toList());
    }

    /** Issue 15: a message over the broker's limit failed unnoticed; the wait ran out and the commit retried forever. */
    @Test
    void aBatchTheBusRefusesFailsTheWaitAtOnce() {
        Bus bus = new Bus(b -> CompletableFuture.failedFuture(new IllegalStateException(
                "RecordTooLargeException: the message is 2097152 bytes when serialized")));
        DeadLetterSender sender = new DeadLetterSender(bus, 60_000);
        IllegalStateException e = assertTimeoutPreemptively(Duration.ofSeconds(10),
                () -> assertThrows(IllegalStateException.class, () -> sender.store(List.of(batch("1", "2")))));
        assertTrue(e.getMessage().contains("the bus refused a batch of dead letters")
                && e.getMessage().contains("RecordTooLargeException"), e.getMessage());
    }

    /** An acknowledgement names its version: the older one's does not end the wait for the newer. */
    @Test
    void theAckOfAnotherVersionIsNotThisOnes() throws Exception {
        Bus bus = new Bus(b -> CompletableFuture.completedFuture(null));
        DeadLetterSender sender = new DeadLetterSender(bus, 2_000);
        DlqBatch newer = batch("1", "2", "3");
        CompletableFuture<Void> stored = CompletableFuture.runAsync(() -> sender.store(List.of(newer)));
        while (bus.sent.isEmpty()) {
            Thread.sleep(10);
        }
        sender.acknowledged(DlqAck.stored(batch("1")));
        Thread.sleep(200);
        assertTrue(!stored.isDone(), "the older version's ack ended the wait");
        sender.acknowledged(DlqAck.stored(newer));
        stored.get();
        assertEquals(List.of(newer), bus.sent);
    }
}
