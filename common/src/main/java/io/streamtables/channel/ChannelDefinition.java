package io.streamtables.channel;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * A channel in exactly the shape of the AWS {@code CreateChannel} input (SPEC C2, member names as in the
 * Kinesis service model), so a channel file, the seed's {@code file://} arguments and, later, the wire API all
 * read the same JSON.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = false)
public record ChannelDefinition(
        @JsonProperty("ChannelName") String channelName,
        @JsonProperty("ServiceExecutionRoleARN") @JsonAlias("ServiceExecutionRoleArn") String serviceExecutionRoleArn,
        @JsonProperty("StreamConfigurationList") List<StreamConfiguration> streamConfigurationList,
        @JsonProperty("S3TablesDestinationConfiguration") S3TablesDestinationConfiguration destination,
        @JsonProperty("LoggingConfiguration") LoggingConfiguration loggingConfiguration,
        @JsonProperty("EncryptionConfiguration") EncryptionConfiguration encryptionConfiguration,
        @JsonProperty("Tags") Map<String, String> tags) {

    /** The one stream and the one table of the channel: the seed allows exactly one of each. */
    public StreamConfiguration stream() {
        return streamConfigurationList.get(0);
    }

    public TableConfiguration table() {
        return destination.tables().get(0);
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record StreamConfiguration(
            @JsonProperty("StreamARN") String streamArn,
            @JsonProperty("RecordConfiguration") RecordConfiguration recordConfiguration) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record RecordConfiguration(
            @JsonProperty("RecordFormatType") String recordFormatType,
            @JsonProperty("GSRSchemaARN") String gsrSchemaArn) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record S3TablesDestinationConfiguration(
            @JsonProperty("DataFreshnessInSeconds") Integer dataFreshnessInSeconds,
            @JsonProperty("DeadLetterQueueS3Configuration") DeadLetterQueueConfiguration deadLetterQueue,
            @JsonProperty("S3TablesConfigurationList") List<TableConfiguration> tables) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record DeadLetterQueueConfiguration(
            @JsonProperty("BucketARN") String bucketArn,
            @JsonProperty("ExpectedBucketOwner") String expectedBucketOwner,
            @JsonProperty("ErrorOutputPrefix") String errorOutputPrefix) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record TableConfiguration(
            @JsonProperty("TableBucketARN") String tableBucketArn,
            @JsonProperty("Namespace") String namespace,
            @JsonProperty("TableName") String tableName,
            @JsonProperty("CompressionType") String compressionType,
            @JsonProperty("PartitionSpec") PartitionSpec partitionSpec) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record PartitionSpec(@JsonProperty("PartitionFields") List<PartitionField> partitionFields) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record PartitionField(
            @JsonProperty("Transform") String transform,
            @JsonProperty("SourceName") String sourceName) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record LoggingConfiguration(@JsonProperty("CloudWatchLogs") CloudWatchLogs cloudWatchLogs) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record CloudWatchLogs(
            @JsonProperty("Enabled") Boolean enabled,
            @JsonProperty("LogGroupName") String logGroupName,
            @JsonProperty("LogStreamName") String logStreamName) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record EncryptionConfiguration(
            @JsonProperty("EncryptionType") String encryptionType,
            @JsonProperty("KeyId") String keyId) {
    }
}
