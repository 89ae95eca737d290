package io.streamtables.ingest;

import io.streamtables.health.Probe;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/** Kinesis answers; any answer counts, an access refusal too (the channel's own checks say more). */
@Readiness
@ApplicationScoped
public class KinesisReadiness implements HealthCheck {

    private final KinesisClient kinesis;

    public KinesisReadiness(KinesisClient kinesis) {
        this.kinesis = kinesis;
    }

    @Override
    public HealthCheckResponse call() {
        return Probe.of("kinesis", "check delivery.kinesis.endpoint-override, the network and the credentials", () -> {
            try {
                return kinesis.listStreams(r -> r.limit(1));
            } catch (AwsServiceException answered) {
                return null;
            }
        });
    }
}
