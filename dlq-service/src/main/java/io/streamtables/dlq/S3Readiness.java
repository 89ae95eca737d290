package io.streamtables.dlq;

import io.streamtables.health.Probe;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * S3 answers: a HEAD on a bucket name of ours; not-found and access-denied answers count, since the DLQ buckets
 * are the channels' and each write reports its own failure.
 */
@Readiness
@ApplicationScoped
public class S3Readiness implements HealthCheck {

    private final S3Client s3;

    public S3Readiness(S3Client s3) {
        this.s3 = s3;
    }

    @Override
    public HealthCheckResponse call() {
        return Probe.of("s3", "check quarkus.s3.endpoint-override, the network and the credentials", () -> {
            try {
                return s3.headBucket(r -> r.bucket("streamtables-readiness-probe"));
            } catch (AwsServiceException answered) {
                return null;
            }
        });
    }
}
