package io.streamtables.cloudwatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.streamtables.config.TestDeliveryConfig;
import io.streamtables.metrics.DeliveryMetrics;
import io.streamtables.stubs.AwsStub;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The official CloudWatchClient (Smithy RPC v2 CBOR) against {@link AwsStub}; what arrived is checked. */
class FreshnessPublisherTest {

    @Test
    void everyChannelsFreshnessArrivesAsDataFreshnessInSeconds() throws Exception {
        try (AwsStub cloudWatch = new AwsStub().on("PutMetricData", request -> AwsStub.object())) {
            DeliveryMetrics metrics = new DeliveryMetrics(new SimpleMeterRegistry());
            FreshnessPublisher publisher = new FreshnessPublisher(TestCloudWatchConfig.against(cloudWatch.endpoint(),
                    Map.of("delivery.cloudwatch.metrics.interval", "1h")), TestDeliveryConfig.forAccount(
                    "000000000000"), metrics);
            publisher.start(null);
            try {
                metrics.waiting("arn:behind", "commit", System.currentTimeMillis() - 42_000);
                for (int i = 0; i < 1500; i++) {
                    metrics.waiting("arn:idle-" + i, "commit", 0);
                }
                publisher.publish();
            } finally {
                publisher.stop(null);
            }
            List<AwsStub.Call> calls = cloudWatch.calls("PutMetricData");
            assertEquals(2, calls.size(), "a thousand data points a call");
            assertEquals("CLOUDWATCHKEY", calls.get(0).signedBy());
            int points = 0;
            JsonNode behind = null;
            for (AwsStub.Call call : calls) {
                assertEquals("StreamTables/DataChannel", call.request().path("Namespace").asText());
                for (JsonNode datum : call.request().path("MetricData")) {
                    points++;
                    assertEquals("DataFreshness", datum.path("MetricName").asText());
                    assertEquals("Seconds", datum.path("Unit").asText());
                    assertEquals("ChannelArn", datum.path("Dimensions").get(0).path("Name").asText());
                    if ("arn:behind".equals(datum.path("Dimensions").get(0).path("Value").asText())) {
                        behind = datum;
                    } else {
                        assertEquals(0.0, datum.path("Value").asDouble(), "an idle channel is fresh");
                    }
                }
            }
            assertEquals(1501, points);
            assertTrue(behind != null && behind.path("Value").asDouble() >= 42
                    && behind.path("Value").asDouble() < 60, String.valueOf(behind));
        }
    }
}
