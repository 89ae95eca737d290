package io.streamtables.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DeliveryMetricsTest {

    /**
     * A function counter holds its source weakly: the decoder the caller keeps is the source, so the count survives
     * a collection (a lambda made for the meter alone was collected, and the counter read NaN).
     */
    @Test
    void decodedRecordsAreCountedFromTheDecoderTheStageKeeps() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        AtomicLong decoder = new AtomicLong();
        new DeliveryMetrics(registry).decoded("arn:c", "compiled", decoder, AtomicLong::get);
        decoder.set(42);
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        assertEquals(42.0, registry.get("delivery.records.decoded").tags("channel", "arn:c", "path", "compiled")
                .functionCounter().count());
    }

    /** A deleted channel's meters go (channels come and go for months); another channel's stay. */
    @Test
    void theMetersOfADeletedChannelGo() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        DeliveryMetrics metrics = new DeliveryMetrics(registry);
        for (String arn : new String[] {"arn:gone", "arn:kept"}) {
            metrics.waiting(arn, "commit", System.currentTimeMillis());
            metrics.committed(arn, 10, 1, 1, 100);
            metrics.behindLatest(arn, "shardId-0", 5);
            metrics.handedOn("commit", arn, System.currentTimeMillis());
        }
        long kept = meters(registry, "arn:kept");
        assertEquals(kept, meters(registry, "arn:gone"));
        metrics.forget(new io.streamtables.channel.ChannelGone("arn:gone"));
        assertEquals(0, meters(registry, "arn:gone"));
        assertEquals(kept, meters(registry, "arn:kept"));
        assertEquals(0.0, metrics.freshnessSeconds("arn:gone"));
    }

    private static long meters(SimpleMeterRegistry registry, String channel) {
        return registry.getMeters().stream().filter(m -> channel.equals(m.getId().getTag("channel"))).count();
    }
}
