package io.streamtables.controlplane;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.streamtables.channel.ChannelRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Collection;
import java.util.List;

/**
 * Every channel's state and freshness interval on {@code /q/metrics}, for alert rules: {@code delivery_channel_status}
 * (1, tags {@code channel} and {@code status}, the finer word: SUSPENDED stays SUSPENDED) and {@code
 * delivery_channel_freshness_interval_seconds} (its DataFreshnessInSeconds), which the freshness alert compares
 * {@code delivery_data_freshness_seconds} with. Only the control plane knows every channel, so only it reports them.
 */
@ApplicationScoped
class ChannelGauges {

    private record Row(String channel, String status, int intervalSeconds) {
    }

    private final MultiGauge status;
    private final MultiGauge interval;
    private List<Row> shown = List.of();

    ChannelGauges(MeterRegistry registry) {
        status = MultiGauge.builder("delivery.channel.status")
                .description("1 for each channel, tagged with its state").register(registry);
        interval = MultiGauge.builder("delivery.channel.freshness.interval").baseUnit("seconds")
                .description("the channel's DataFreshnessInSeconds").register(registry);
    }

    /** The channels as the registry has them now; the meters change only when a row does. */
    synchronized void show(Collection<ChannelRegistry.Entry> channels) {
        List<Row> rows = channels.stream().map(e -> new Row(e.channel().arn(), e.status().name(),
                e.channel().freshnessSeconds())).sorted(java.util.Comparator.comparing(Row::channel)).toList();
        if (rows.equals(shown)) {
            return;
        }
        shown = rows;
        status.register(rows.stream().map(r -> MultiGauge.Row.of(Tags.of("channel", r.channel(), "status",
                r.status()), 1)).toList(), true);
        interval.register(rows.stream().map(r -> MultiGauge.Row.of(Tags.of("channel", r.channel()),
                r.intervalSeconds())).toList(), true);
    }
}
