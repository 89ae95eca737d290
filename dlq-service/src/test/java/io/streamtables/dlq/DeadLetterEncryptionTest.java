package io.streamtables.dlq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelDefinition;
import io.streamtables.config.TestDeliveryConfig;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * A DLQ write carries no SSE header by default, so the DLQ bucket's own default encryption applies (a policy
 * demanding its KMS key would refuse the channel's key or SSE-S3 with 403, and the channel would be suspended); a
 * setting forces SSE-S3, the channel's key or one key.
 */
class DeadLetterEncryptionTest {

    private static final String CHANNEL_KEY = "arn:aws:kms:us-east-1:000000000000:key/1234abcd-12ab-34cd-56ef-1234567890ab";
    private static final String DLQ_KEY = "arn:aws:kms:us-east-1:000000000000:key/00000000-0000-0000-0000-00000000dead";

    @Test
    void byDefaultTheBucketDecides() throws Exception {
        PutObjectRequest put = put("bucket-default", true, channel(CHANNEL_KEY));
        assertNull(put.serverSideEncryptionAsString(), "a channel with a key: still no header");
        assertNull(put.ssekmsKeyId());
        assertNull(put("bucket-default", true, channel(null)).serverSideEncryptionAsString());
    }

    @Test
    void aSettingForcesSseS3TheChannelsKeyOrOneKey() throws Exception {
        assertEquals("AES256", put("sse-s3", true, channel(CHANNEL_KEY)).serverSideEncryptionAsString());
        PutObjectRequest channelKey = put("channel", true, channel(CHANNEL_KEY));
        assertEquals("aws:kms", channelKey.serverSideEncryptionAsString());
        assertEquals(CHANNEL_KEY, channelKey.ssekmsKeyId());
        assertEquals("AES256", put("channel", true, channel(null)).serverSideEncryptionAsString(),
                "the channel's encryption without a key: SSE-S3");
        PutObjectRequest oneKey = put(DLQ_KEY, true, channel(CHANNEL_KEY));
        assertEquals("aws:kms", oneKey.serverSideEncryptionAsString());
        assertEquals(DLQ_KEY, oneKey.ssekmsKeyId());
        assertNull(put(DLQ_KEY, false, channel(CHANNEL_KEY)).serverSideEncryptionAsString(),
                "delivery.encryption.sse-headers=false: no SSE header on any write");
    }

    @Test
    void anUnknownSettingIsRefusedNamingIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> DeadLetterEncryption.of("aws:kms", true));
        assertTrue(e.getMessage().contains("delivery.encryption.dead-letters")
                && e.getMessage().contains("bucket-default, sse-s3, channel"), e.getMessage());
    }

    private static PutObjectRequest put(String setting, boolean sseHeaders, Channel channel) {
        PutObjectRequest.Builder put = PutObjectRequest.builder().bucket("dlq").key("k");
        DeadLetterEncryption.of(setting, sseHeaders).apply(put, channel);
        return put.build();
    }

    private static Channel channel(String key) throws Exception {
        String encryption = key == null ? "" : """
                , "EncryptionConfiguration": {"EncryptionType": "KMS", "KeyId": "%s"}""".formatted(key);
        ChannelDefinition d = new ObjectMapper().readValue("""
                {"ChannelName": "c", "StreamConfigurationList": [{"StreamARN": "arn:aws:kinesis:us-east-1:000000000000:stream/s",
                  "RecordConfiguration": {"RecordFormatType": "JSON",
                   "GSRSchemaARN": "arn:aws:glue:us-east-1:000000000000:schema/r/s"}}],
                 "S3TablesDestinationConfiguration": {
                  "DeadLetterQueueS3Configuration": {"BucketARN": "arn:aws:s3:::dlq", "ExpectedBucketOwner": "000000000000"},
                  "S3TablesConfigurationList": [{"TableBucketARN": "arn:aws:s3tables:us-east-1:000000000000:bucket/b",
                   "Namespace": "ns", "TableName": "t", "CompressionType": "ZSTD",
                   "PartitionSpec": {"PartitionFields": [{"Transform": "TIME_HOUR", "SourceName": "ts"}]}}]}%s}
                """.formatted(encryption), ChannelDefinition.class);
        return Channel.of(d, TestDeliveryConfig.forAccount("000000000000"));
    }
}
