package io.streamtables.controlplane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.streamtables.config.KinesisLocal;
import jakarta.inject.Inject;
import java.net.URL;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ChannelDescription;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A FAILED reason is the tenant's to read, and carries the operator's configuration only where the
 * tenant owns it. A table bucket whose catalog the operator configured wrongly fails the channel with a reason that
 * names the tenant's ARN and no setting, host or error of the operator's (the log has them).
 */
@QuarkusTest // the tests' configuration gives table bucket "broken" a catalog that cannot be built
class ChannelReasonsTest {

    @TestHTTPResource("/")
    URL url;
    @Inject
    S3Client s3;

    @Test
    void aReasonNamesNoneOfTheOperatorsCatalogSettings() throws Exception {
        String stream = ChannelApiTest.unique("stream");
        String bucket = ChannelApiTest.unique("dlq");
        s3.createBucket(b -> b.bucket(bucket));
        try (KinesisClient streams = KinesisLocal.client(); KinesisClient api = ChannelApiTest.client(url.toURI(), false)) {
            streams.createStream(r -> r.streamName(stream).shardCount(1));
            KinesisLocal.awaitActive(streams, stream);
            String arn = api.createChannel(ChannelApiTest.withDlq(stream, "arn:aws:s3:::" + bucket, "errors/")
                    .andThen(r -> r.s3TablesDestinationConfiguration(d -> d.dataFreshnessInSeconds(60)
                            .deadLetterQueueS3Configuration(q -> q.bucketARN("arn:aws:s3:::" + bucket)
                                    .expectedBucketOwner(ChannelApiTest.ACCOUNT))
                            .s3TablesConfigurationList(t -> t.tableBucketARN("arn:aws:s3tables:us-east-1:"
                                    + ChannelApiTest.ACCOUNT + ":bucket/broken").namespace("ns")
                                    .tableName(ChannelApiTest.unique("t").replace('-', '_')).compressionType("ZSTD")
                                    .partitionSpec(p -> p.partitionFields(f -> f.transform("TIME_HOUR")
                                            .sourceName("event_time")))))))
                    .channelDescription().channelARN();
            ChannelDescription d = api.describeChannel(r -> r.channelARN(arn)).channelDescription();
            for (int i = 0; i < 300 && "CREATING".equals(d.channelStatusAsString()); i++) {
                Thread.sleep(100);
                d = api.describeChannel(r -> r.channelARN(arn)).channelDescription();
            }
            String reason = d.channelStatusReason();
            assertEquals("FAILED", d.channelStatusAsString(), reason);
            assertTrue(reason.contains("bucket/broken") && reason.contains("ask the operator"), reason);
            for (String operators : new String[] {"delivery.table-buckets", "secret-host", "no-such-catalog-type"}) {
                assertFalse(reason.contains(operators), reason);
            }
        }
    }
}
