package io.streamtables.cloudwatch;

import io.quarkus.runtime.configuration.DurationConverter;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.streamtables.config.CloudWatchConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** {@code delivery.cloudwatch.*} as the service reads it, from these settings and the defaults. */
final class TestCloudWatchConfig {

    private TestCloudWatchConfig() {
    }

    /** Both halves enabled against {@code endpoint}, signing with a static key, and {@code settings} on top. */
    static CloudWatchConfig against(String endpoint, Map<String, String> settings) {
        Map<String, String> all = new HashMap<>();
        for (String half : new String[] {"metrics", "logs"}) {
            String prefix = "delivery.cloudwatch." + half + ".";
            all.put(prefix + "enabled", "true");
            all.put(prefix + "endpoint-override", endpoint);
            all.put(prefix + "aws.credentials.type", "static");
            all.put(prefix + "aws.credentials.static-provider.access-key-id", "CLOUDWATCHKEY");
            all.put(prefix + "aws.credentials.static-provider.secret-access-key", "secret");
        }
        all.putAll(settings);
        return new SmallRyeConfigBuilder().withSources(new PropertiesConfigSource(all, "test", 500))
                .withConverter(Duration.class, 100, new DurationConverter()) // Quarkus's "5s" form
                .withMapping(CloudWatchConfig.class).withValidateUnknown(false).build()
                .getConfigMapping(CloudWatchConfig.class);
    }
}
