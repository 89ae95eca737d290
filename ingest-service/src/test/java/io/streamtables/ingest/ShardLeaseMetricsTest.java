package io.streamtables.ingest;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The instance's lease count is on /q/metrics (the management port), tagged with its lease owner id (host:port). */
@QuarkusTest
class ShardLeaseMetricsTest {

    @TestHTTPResource(value = "/metrics", management = true) // under the management root, /q
    URL metrics;

    @Test
    void theLeasesHeldAreAGaugeTaggedWithTheOwner() throws Exception {
        String text;
        try (InputStream in = metrics.openStream()) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertTrue(Pattern.compile("(?m)^delivery_shard_leases\\{owner=\"[^\"/:]+(:\\d+|/\\d+/[0-9a-f]{8})\",?} \\d+\\.0$")
                .matcher(text).find(), "no delivery_shard_leases gauge in:\n" + text.lines()
                .filter(l -> l.startsWith("delivery")).toList());
    }
}
