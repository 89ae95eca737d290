package io.streamtables.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamtables.channel.Channel;
import java.time.Instant;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;

class DeadLetterKeysTest {

    private static final String SEQ = "49590338271490256608559692538361571095921575989136588898";

    @Test
    void keyIsPrefixUtcHourAndFirstReject() {
        Channel channel = CommitFixture.channel("orders-channel", "orders", "errors/");
        long arrival = Instant.parse("2024-12-31T23:30:00.123Z").toEpochMilli();
        TimeZone zone = TimeZone.getDefault();
        // a zone where that instant is already 2025: the key must not follow the JVM's zone
        TimeZone.setDefault(TimeZone.getTimeZone("Pacific/Kiritimati"));
        try {
            assertEquals("errors/2024/12/31/23/orders-channel-" + CommitFixture.SHARD + "-" + SEQ + ".jsonl",
                    DeadLetterKeys.key(channel, CommitFixture.reject(SEQ, arrival)));
        } finally {
            TimeZone.setDefault(zone);
        }
    }

    @Test
    void noPrefixAndZeroPaddedFields() {
        Channel channel = CommitFixture.channel("c.1", "orders", null);
        long arrival = Instant.parse("2025-03-04T05:06:07Z").toEpochMilli();
        assertEquals("2025/03/04/05/c.1-" + CommitFixture.SHARD + "-7.jsonl",
                DeadLetterKeys.key(channel, CommitFixture.reject("7", arrival)));
    }
}
