package io.streamtables.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.streamtables.config.AwsClients;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.MultipartUpload;

/** Against S3Proxy ({@code S3_ENDPOINT}, default the one scripts/peers.sh starts; skipped when it does not answer). */
class IncompleteUploadsTest {

    private static final String ENDPOINT = System.getenv().getOrDefault("S3_ENDPOINT", "http://127.0.0.1:4570");

    @Test
    void onlyOldUploadsUnderThePrefixAreAborted() {
        try (S3Client s3 = S3Client.builder().endpointOverride(URI.create(ENDPOINT)).region(Region.US_EAST_1)
                .forcePathStyle(true).httpClientBuilder(AwsClients.httpClient())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .build()) {
            String bucket = "uploads-" + UUID.randomUUID().toString().substring(0, 8);
            try {
                s3.createBucket(b -> b.bucket(bucket));
            } catch (SdkClientException e) {
                Assumptions.abort("no S3 answers at " + ENDPOINT + ": " + e.getMessage());
            }
            s3.createMultipartUpload(b -> b.bucket(bucket).key("warehouse/orders/data/a.parquet"));
            s3.createMultipartUpload(b -> b.bucket(bucket).key("warehouse/orders_old/data/b.parquet"));
            s3.createMultipartUpload(b -> b.bucket(bucket).key("errors/c.json"));

            assertEquals(0, IncompleteUploads.abort(s3, bucket, "warehouse/orders/", Instant.now().minusSeconds(60)),
                    "started just now: may still be under way");
            assertEquals(1, IncompleteUploads.abort(s3, bucket, "warehouse/orders/", Instant.now().plusSeconds(60)));
            List<String> left = s3.listMultipartUploads(b -> b.bucket(bucket)).uploads().stream()
                    .map(MultipartUpload::key).sorted().toList();
            assertEquals(List.of("errors/c.json", "warehouse/orders_old/data/b.parquet"), left,
                    "only under the prefix, with its slash");
        }
    }

    @Test
    void locationsInS3AreSplitIntoBucketAndKey() {
        assertArrayEquals(new String[] {"bucket", "w/orders/"}, IncompleteUploads.bucketAndKey("s3://bucket/w/orders/"));
        assertArrayEquals(new String[] {"bucket", ""}, IncompleteUploads.bucketAndKey("s3a://bucket"));
        assertNull(IncompleteUploads.bucketAndKey("/data/warehouse/orders/"));
        assertNull(IncompleteUploads.bucketAndKey("gs://bucket/w/"));
    }
}
