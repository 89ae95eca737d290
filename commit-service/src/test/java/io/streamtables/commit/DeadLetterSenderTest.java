package io.streamtables.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.bus.DlqAck;
import io.streamtables.bus.DlqBatch;
import io.streamtables.bus.TestEmitter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** How the commit stage waits for dlq-service: the ack of the version it sent, or the bus' refusal at once. */
class DeadLetterSenderTest {

    private static DlqBatch batch(String... sequences) {
        return new DlqBatch("arn:aws:kinesis:us-east-1:000000000000:channel/c", "errors/k.jsonl",
                java.util.Arrays.stream(sequences).map(s -> CommitFixture.reject(s, 1L)).toList());
    }

    /**
     * A message over the broker's limit fails the wait at once, instead of going unnoticed until the wait runs out and
     * the commit retries forever.
     */
    @Test
    void aBatchTheBusRefusesFailsTheWaitAtOnce() {
        TestEmitter<DlqBatch> bus = new TestEmitter<>(b -> CompletableFuture.failedFuture(new IllegalStateException(
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
        TestEmitter<DlqBatch> bus = new TestEmitter<>(b -> CompletableFuture.completedFuture(null));
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
