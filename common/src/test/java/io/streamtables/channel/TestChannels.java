package io.streamtables.channel;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.config.TestDeliveryConfig;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Channels for tests of other packages: account 000000000000, us-east-1, the seed's shapes. */
public final class TestChannels {

    public static final String ACCOUNT = "000000000000";

    private TestChannels() {
    }

    /** A channel named {@code name} whose delivery log goes to this group and stream (no logging if null). */
    public static Channel of(String name, String logGroup, String logStream) {
        String logging = logGroup == null ? "" : """
                , "LoggingConfiguration": {"CloudWatchLogs": {"Enabled": true, "LogGroupName": "%s",
                  "LogStreamName": "%s"}}""".formatted(logGroup, logStream);
        try {
            ChannelDefinition d = new ObjectMapper().readValue("""
                    {"ChannelName": "%s", "ServiceExecutionRoleARN": "arn:aws:iam::%s:role/delivery",
                     "StreamConfigurationList": [{"StreamARN": "arn:aws:kinesis:us-east-1:%s:stream/s",
                      "RecordConfiguration": {"RecordFormatType": "JSON",
                       "GSRSchemaARN": "arn:aws:glue:us-east-1:%s:schema/r/s"}}],
                     "S3TablesDestinationConfiguration": {"DataFreshnessInSeconds": 300,
                      "DeadLetterQueueS3Configuration": {"BucketARN": "arn:aws:s3:::dlq", "ExpectedBucketOwner": "%s"},
                      "S3TablesConfigurationList": [{"TableBucketARN": "arn:aws:s3tables:us-east-1:%s:bucket/b",
                       "Namespace": "ns", "TableName": "t", "CompressionType": "ZSTD",
                       "PartitionSpec": {"PartitionFields": [{"Transform": "TIME_HOUR", "SourceName": "ts"}]}}]}%s}
                    """.formatted(name, ACCOUNT, ACCOUNT, ACCOUNT, ACCOUNT, ACCOUNT, logging), ChannelDefinition.class);
            return Channel.of(d, TestDeliveryConfig.forAccount(ACCOUNT));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
