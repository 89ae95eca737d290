package io.streamtables.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelGone;
import io.streamtables.channel.DeliveryLog;
import io.streamtables.channel.TestChannels;
import io.streamtables.metrics.DeliveryMetrics;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What the status console keeps is bounded (an hour of freshness, a day of hours, the last events). */
class ConsoleHistoryTest {

    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    DeliveryMetrics metrics = new DeliveryMetrics(registry);
    ConsoleHistory history = new ConsoleHistory(metrics, registry);

    @AfterEach
    void stop() {
        history.stop(null);
    }

    @Test
    void freshnessIsKeptForAnHourAndRowsByTheHourForADay() {
        long start = 1_800_000_000L - 1_800_000_000L % 3600; // on an hour
        metrics.waiting("arn:c", "commit", System.currentTimeMillis() - 30_000);
        for (long t = start; t < start + 2 * 3600; t += ConsoleHistory.SAMPLE_SECONDS) {
            history.sample(t);
        }
        List<ConsoleHistory.Point> freshness = history.freshness("arn:c");
        assertEquals(ConsoleHistory.FRESHNESS_POINTS, freshness.size());
        long newest = freshness.get(freshness.size() - 1).at();
        assertTrue(freshness.get(0).at() > newest - 3600, "older than an hour: " + freshness.get(0));
        assertTrue(freshness.get(freshness.size() - 1).value() >= 30);

        for (int hour = 0; hour < 30; hour++) { // 30 hours, 100 rows and 1 dead letter each
            metrics.committed("arn:c", 100, 1, 1, 1000);
            history.sample(start + hour * 3600L + 60);
        }
        List<ConsoleHistory.Hour> hours = history.hours("arn:c");
        assertEquals(ConsoleHistory.HOURS, hours.size(), "a day of hours");
        ConsoleHistory.Hour last = hours.get(hours.size() - 1);
        assertEquals(new ConsoleHistory.Hour(start + 29 * 3600L, 100, 1), last);

        history.forget(new ChannelGone("arn:c"));
        assertEquals(List.of(), history.hours("arn:c"));
    }

    @Test
    void maintenanceRunsAndErrorsAreTheLastOnesWhetherLoggedOrNot() {
        history.start(null);
        Channel quiet = TestChannels.of("quiet", null, null); // no delivery log: the console sees its events still
        for (int i = 0; i < 60; i++) {
            DeliveryLog.log(quiet, DeliveryLog.Event.COMMIT_FAILED, Map.of("error", "refused " + i));
            DeliveryLog.log(quiet, DeliveryLog.Event.MAINTAINED, Map.of("filesCompacted", i));
        }
        DeliveryLog.log(quiet, DeliveryLog.Event.COMMITTED, Map.of("rows", 5)); // not an error
        assertEquals(ConsoleHistory.ERRORS, history.errors().size());
        assertEquals("refused 59", history.errors().get(ConsoleHistory.ERRORS - 1).path("error").asText());
        List<com.fasterxml.jackson.databind.node.ObjectNode> runs = history.maintenance(quiet.arn());
        assertEquals(ConsoleHistory.MAINTENANCE_RUNS, runs.size());
        assertEquals(59, runs.get(runs.size() - 1).path("filesCompacted").asInt());
        assertTrue(runs.stream().noneMatch(r -> r.has("logGroupName")), "no delivery log target without logging");
    }
}
