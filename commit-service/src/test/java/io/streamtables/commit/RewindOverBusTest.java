package io.streamtables.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamtables.bus.CommitToken;
import io.streamtables.bus.RewindException;
import io.streamtables.bus.RewindRequest;
import io.streamtables.bus.RowChunk;
import io.streamtables.bus.TestEmitter;
import java.util.List;
import org.eclipse.microprofile.reactive.messaging.Message;
import org.junit.jupiter.api.Test;

/** A refused chunk becomes a rewind request on the bus, whichever bus it came over (in memory here). */
class RewindOverBusTest {

    private static final CommitToken TOKEN = new CommitToken("arn:aws:kinesis:us-east-1:000000000000:channel/c",
            "arn:aws:kinesis:us-east-1:000000000000:stream/s", "shardId-000000000001", "7", "8", "9");

    @Test
    void aChunkRefusedForARewindAsksTheReaderOverTheBus() {
        TestEmitter<RewindRequest> rewinds = TestEmitter.accepting();
        new RewindOverBus(rewinds).onMessageNack(Message.of(new RowChunk(TOKEN, List.of(), List.of())),
                new IllegalStateException("wrapped", new RewindException(TOKEN.shardId(), "5")));
        assertEquals(List.of(new RewindRequest(TOKEN, "5")), rewinds.sent);
    }

    @Test
    void anyOtherRefusalAsksNothing() {
        TestEmitter<RewindRequest> rewinds = TestEmitter.accepting();
        RewindOverBus interceptor = new RewindOverBus(rewinds);
        interceptor.onMessageNack(Message.of(new RowChunk(TOKEN, List.of(), List.of())),
                new IllegalStateException("the buffer is at a limit"));
        interceptor.onMessageAck(Message.of(new RowChunk(TOKEN, List.of(), List.of())));
        assertEquals(List.of(), rewinds.sent);
    }
}
