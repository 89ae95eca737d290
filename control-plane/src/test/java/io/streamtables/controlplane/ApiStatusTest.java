package io.streamtables.controlplane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.channel.ChannelRegistry;
import java.time.Instant;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.kinesis.model.ChannelStatus;

/**
 * Every state the API answers is one of the Java SDK's {@code ChannelStatus} values: a suspended channel answering
 * SUSPENDED would be read by the SDK as {@code UNKNOWN_TO_SDK_VERSION}.
 */
class ApiStatusTest {

    @Test
    void everyStateIsOneTheSdkKnows() {
        Set<String> sdk = Arrays.stream(ChannelStatus.values()).filter(s -> s != ChannelStatus.UNKNOWN_TO_SDK_VERSION)
                .map(ChannelStatus::toString).collect(Collectors.toSet());
        for (ChannelRegistry.Status status : ChannelRegistry.Status.values()) {
            String answered = ApiStatus.of(entry(status, "why", 1), 0).status();
            assertTrue(sdk.contains(answered), status + " is answered " + answered + ", not one of " + sdk);
            assertEquals(answered, ChannelStatus.fromValue(answered).toString());
        }
    }

    @Test
    void aSuspendedChannelIsFailedWithAReasonThatSaysSo() {
        ApiStatus suspended = ApiStatus.of(entry(ChannelRegistry.Status.SUSPENDED, "the table ns.t was dropped.", 0), 0);
        assertEquals("FAILED", suspended.status());
        assertEquals("Suspended: the table ns.t was dropped. A suspended channel cannot be resumed: create a new "
                + "channel.", suspended.reason());
        ApiStatus failed = ApiStatus.of(entry(ChannelRegistry.Status.FAILED, "no such stream", 0), 0);
        assertEquals("no such stream", failed.reason(), "a FAILED channel's reason as it was");
    }

    /** An ACTIVE channel is UPDATING while a stage has not read its update. */
    @Test
    void anUpdateIsUpdatingUntilEveryStageHasReadIt() {
        ChannelRegistry.Entry updated = entry(ChannelRegistry.Status.ACTIVE, null, 7);
        assertEquals("UPDATING", ApiStatus.of(updated, 6).status(), "a stage runs with revision 6");
        assertEquals("ACTIVE", ApiStatus.of(updated, 7).status());
        assertEquals("ACTIVE", ApiStatus.of(updated, Long.MAX_VALUE).status(), "no stage has read lately");
        assertEquals("CREATING", ApiStatus.of(entry(ChannelRegistry.Status.CREATING, null, 7), 6).status());
    }

    private static ChannelRegistry.Entry entry(ChannelRegistry.Status status, String reason, long revision) {
        return new ChannelRegistry.Entry(null, status, reason, Instant.EPOCH, null, null, revision);
    }
}
