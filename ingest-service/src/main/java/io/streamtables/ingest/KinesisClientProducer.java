package io.streamtables.ingest;

import io.streamtables.config.AwsClients;
import io.streamtables.config.DeliveryConfig;
import io.streamtables.config.KinesisConfig;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/** The plain AWS SDK Kinesis client ({@code quarkus-amazon-kinesis} is not served by our registry). */
public class KinesisClientProducer {

    @Produces
    @Singleton
    KinesisClient kinesis(KinesisConfig config, DeliveryConfig delivery) {
        return AwsClients.build(KinesisClient.builder(), config, "delivery.kinesis", delivery.region());
    }

    void close(@Disposes KinesisClient client) {
        client.close();
    }
}
