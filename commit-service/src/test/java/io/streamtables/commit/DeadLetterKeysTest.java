package io.streamtables.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.bus.DlqBatch;
import io.streamtables.bus.ErrorCode;
import io.streamtables.bus.Reject;
import io.streamtables.bus.kafka.BusCodec;
import io.streamtables.channel.Channel;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
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

    /**
     * A shard's rejects of one commit would be one bus message, which a broker refuses past its limit;
     * they are cut into batches that fit, each its own object, the same way every time (a replay writes the same).
     */
    @Test
    void manyRejectsAreCutIntoBatchesThatFitABusMessage() throws Exception {
        Channel channel = CommitFixture.channel("orders-channel", "orders", "errors/");
        List<Reject> rejects = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            rejects.add(new Reject(CommitFixture.STREAM_ARN, CommitFixture.SHARD, SEQ.substring(0, 50) + (100_000 + i),
                    1_735_689_600_000L + i, ErrorCode.SCHEMA_VALIDATION_FAILED, "/items/" + i + "/price fails rule 'type'",
                    "/items/" + i + "/price"));
        }
        int max = 64 * 1024;
        List<DlqBatch> batches = DeadLetterKeys.batches(channel, rejects, max);
        assertTrue(batches.size() > 1, "one batch of " + BusCodec.MAPPER.writeValueAsBytes(batches.get(0)).length + " bytes");
        List<Reject> all = new ArrayList<>();
        for (DlqBatch b : batches) {
            int bytes = BusCodec.MAPPER.writeValueAsBytes(b).length;
            assertTrue(bytes <= max, "a batch of " + bytes + " bytes");
            assertEquals(DeadLetterKeys.key(channel, b.rejects().get(0)), b.objectKey());
            all.addAll(b.rejects());
        }
        assertEquals(rejects, all);
        assertEquals(batches, DeadLetterKeys.batches(channel, rejects, max), "cut the same way again");
        assertEquals(List.of(new DlqBatch(channel.arn(), DeadLetterKeys.key(channel, rejects.get(0)), rejects.subList(0, 3))),
                DeadLetterKeys.batches(channel, rejects.subList(0, 3), max));
    }
}
