package io.streamtables.controlplane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.net.URL;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ChannelDescription;

/**
 * A channel whose checks never get an answer (Kinesis on a port where nothing listens) goes FAILED once
 * {@code delivery.activation.timeout} (3 s here) has passed, with a reason that says so and names no endpoint of the
 * operator's. Before, it stayed CREATING for good, a thread of an unbounded pool retrying it forever.
 */
@QuarkusTest
@TestProfile(ActivationTimeoutTest.SilentKinesis.class)
class ActivationTimeoutTest {

    public static class SilentKinesis implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("delivery.kinesis.endpoint-override", "http://127.0.0.1:1",
                    "delivery.activation.timeout", "3s");
        }
    }

    @TestHTTPResource("/")
    URL url;

    @Test
    void checksThatNeverAnswerFailTheChannelAfterTheTimeout() throws Exception {
        try (KinesisClient api = ChannelApiTest.client(url.toURI(), false)) {
            String arn = api.createChannel(ChannelApiTest.channel(ChannelApiTest.unique("silent"),
                    ChannelApiTest.unique("s"), "ZSTD", 60)).channelDescription().channelARN();
            ChannelDescription channel = null;
            long began = System.nanoTime();
            while (System.nanoTime() - began < 60_000_000_000L) {
                channel = api.describeChannel(r -> r.channelARN(arn)).channelDescription();
                if (!channel.channelStatusAsString().equals("CREATING")) {
                    break;
                }
                Thread.sleep(250);
            }
            long tookMillis = (System.nanoTime() - began) / 1_000_000;
            assertEquals("FAILED", channel.channelStatusAsString(), "after " + tookMillis + " ms");
            assertTrue(channel.channelStatusReason().contains("delivery.activation.timeout"),
                    channel.channelStatusReason());
            assertFalse(channel.channelStatusReason().contains("127.0.0.1"), channel.channelStatusReason());
            assertTrue(tookMillis >= 2_500, "failed after " + tookMillis + " ms");
        }
    }
}
