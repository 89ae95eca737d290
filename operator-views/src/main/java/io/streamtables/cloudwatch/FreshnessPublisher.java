package io.streamtables.cloudwatch;

import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import io.streamtables.config.AwsClients;
import io.streamtables.config.CloudWatchConfig;
import io.streamtables.config.DeliveryConfig;
import io.streamtables.metrics.DeliveryMetrics;
import io.streamtables.tasks.Repeating;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jboss.logging.Logger;
import software.amazon.awssdk.services.cloudwatch.CloudWatchClient;
import software.amazon.awssdk.services.cloudwatch.model.MetricDatum;
import software.amazon.awssdk.services.cloudwatch.model.StandardUnit;

/**
 * Sends each channel's data freshness to CloudWatch as the managed feature names it, {@code DataFreshness} in
 * seconds with the dimension {@code ChannelArn}, every {@code delivery.cloudwatch.metrics.interval}. Each process
 * sends the freshness of the records it holds; the channel's is the {@code Maximum} over them.
 */
@ApplicationScoped
public class FreshnessPublisher {

    static final String METRIC = "DataFreshness";
    static final String DIMENSION = "ChannelArn";
    /** PutMetricData takes at most 1 000 data points a call. */
    static final int PER_CALL = 1000;
    private static final Logger LOG = Logger.getLogger(FreshnessPublisher.class);

    private final CloudWatchConfig.Metrics config;
    private final DeliveryConfig delivery;
    private final DeliveryMetrics metrics;
    private CloudWatchClient cloudWatch;
    private Repeating timer;

    FreshnessPublisher(CloudWatchConfig config, DeliveryConfig delivery, DeliveryMetrics metrics) {
        this.config = config.metrics();
        this.delivery = delivery;
        this.metrics = metrics;
    }

    void start(@Observes StartupEvent event) {
        if (!config.enabled()) {
            return;
        }
        cloudWatch = AwsClients.build(CloudWatchClient.builder(), config, "delivery.cloudwatch.metrics",
                delivery.region());
        long interval = config.interval().toMillis();
        timer = Repeating.withDelay("cloudwatch-metrics", interval, interval, LOG,
                "Sending DataFreshness to CloudWatch", this::publish);
    }

    void stop(@Observes ShutdownEvent event) {
        if (timer != null) {
            timer.stop();
            cloudWatch.close();
        }
    }

    /** One PutMetricData per thousand channels this process holds records of, or has held. */
    void publish() {
        Instant now = Instant.now();
        List<MetricDatum> data = new ArrayList<>();
        for (Map.Entry<String, Double> channel : metrics.freshness().entrySet()) {
            data.add(MetricDatum.builder().metricName(METRIC).unit(StandardUnit.SECONDS).timestamp(now)
                    .value(channel.getValue()).dimensions(d -> d.name(DIMENSION).value(channel.getKey())).build());
        }
        for (int from = 0; from < data.size(); from += PER_CALL) {
            List<MetricDatum> call = data.subList(from, Math.min(data.size(), from + PER_CALL));
            cloudWatch.putMetricData(r -> r.namespace(config.namespace()).metricData(call));
        }
    }
}
