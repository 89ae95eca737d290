package io.streamtables.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.streamtables.config.DeliveryConfig;
import org.junit.jupiter.api.Test;

/**
 * SPEC S3: with the configuration the service ships (no setting of the operator's), the freshness floor is
 * the managed feature's 300 s, 900 s its ceiling, and a channel that omits {@code DataFreshnessInSeconds} gets 300.
 * The tests' own configurations lower the floor to 1 s, so only this test shows the shipped one.
 */
class ShippedFreshnessTest {

    @Test
    void theFloorIs300SecondsAndAnOmittedFreshnessIs300() throws Exception {
        SmallRyeConfig shipped = new SmallRyeConfigBuilder().addDefaultSources().addDiscoveredSources()
                .addDefaultInterceptors().withMapping(DeliveryConfig.class).withValidateUnknown(false).build();
        DeliveryConfig config = shipped.getConfigMapping(DeliveryConfig.class);
        assertEquals(300, config.minDataFreshnessSeconds());

        assertEquals(300, Channel.of(definition(null), config).freshnessSeconds(), "omitted: the default");
        assertEquals(300, Channel.of(definition(300), config).freshnessSeconds());
        assertEquals(900, Channel.of(definition(900), config).freshnessSeconds());
        for (int refused : new int[] {299, 1, 901}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> Channel.of(definition(refused), config));
            assertTrue(e.getMessage().contains("DataFreshnessInSeconds") && e.getMessage().contains("300 and 900"),
                    e.getMessage());
        }
    }

    private static ChannelDefinition definition(Integer freshness) throws Exception {
        String member = freshness == null ? "" : "\"DataFreshnessInSeconds\": " + freshness + ",";
        return new ObjectMapper().readValue("""
                {"ChannelName": "c", "StreamConfigurationList": [{"StreamARN": "arn:aws:kinesis:us-east-1:000000000000:stream/s",
                  "RecordConfiguration": {"RecordFormatType": "JSON",
                   "GSRSchemaARN": "arn:aws:glue:us-east-1:000000000000:schema/r/s"}}],
                 "S3TablesDestinationConfiguration": {%s
                  "DeadLetterQueueS3Configuration": {"BucketARN": "arn:aws:s3:::dlq", "ExpectedBucketOwner": "000000000000"},
                  "S3TablesConfigurationList": [{"TableBucketARN": "arn:aws:s3tables:us-east-1:000000000000:bucket/b",
                   "Namespace": "ns", "TableName": "t", "CompressionType": "ZSTD",
                   "PartitionSpec": {"PartitionFields": [{"Transform": "TIME_HOUR", "SourceName": "ts"}]}}]}}
                """.formatted(member), ChannelDefinition.class);
    }
}
