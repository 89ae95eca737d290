package io.streamtables.ingest;

import io.streamtables.config.DeliveryConfig;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Duration;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.KinesisClientBuilder;

/** The plain AWS SDK Kinesis client ({@code quarkus-amazon-kinesis} is not served by our registry). */
public class KinesisClientProducer {

    @Produces
    @Singleton
    KinesisClient kinesis(KinesisConfig config, DeliveryConfig delivery) {
        KinesisClientBuilder builder = KinesisClient.builder()
                .httpClientBuilder(UrlConnectionHttpClient.builder()
                        .connectionTimeout(Duration.ofSeconds(5))
                        .socketTimeout(Duration.ofSeconds(30)))
                .region(Region.of(config.aws().region().orElse(delivery.region())))
                .credentialsProvider(credentials(config.aws().credentials()));
        config.endpointOverride().ifPresent(builder::endpointOverride);
        return builder.build();
    }

    void close(@Disposes KinesisClient client) {
        client.close();
    }

    static AwsCredentialsProvider credentials(KinesisConfig.Credentials c) {
        if ("static".equals(c.type())) {
            String key = c.staticProvider().accessKeyId().orElseThrow(() -> new IllegalArgumentException(
                    "delivery.kinesis.aws.credentials.static-provider.access-key-id is required when type is static"));
            String secret = c.staticProvider().secretAccessKey().orElseThrow(() -> new IllegalArgumentException(
                    "delivery.kinesis.aws.credentials.static-provider.secret-access-key is required when type is static"));
            return StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret));
        }
        return DefaultCredentialsProvider.builder().build();
    }
}
