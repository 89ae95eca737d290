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
}
