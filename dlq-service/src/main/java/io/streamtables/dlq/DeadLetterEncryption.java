package io.streamtables.dlq;

import io.streamtables.channel.Arn;
import io.streamtables.channel.Channel;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.ServerSideEncryption;

/**
 * The SSE headers of a DLQ write ({@code delivery.encryption.dead-letters}). The DLQ is the tenant's own bucket, as
 * in the managed feature: by default its default encryption decides (its key reached through {@code kms:ViaService});
 * a header naming another key, or SSE-S3 where the policy demands KMS, would be refused with 403.
 */
record DeadLetterEncryption(Mode mode, String keyArn) {

    enum Mode { BUCKET_DEFAULT, SSE_S3, CHANNEL, KEY }

    /**
     * @param setting {@code delivery.encryption.dead-letters}
     * @param sseHeaders {@code delivery.encryption.sse-headers}: false sends no SSE header at all
     */
    static DeadLetterEncryption of(String setting, boolean sseHeaders) {
        if (!sseHeaders) {
            return new DeadLetterEncryption(Mode.BUCKET_DEFAULT, null);
        }
        return switch (setting) {
            case "bucket-default" -> new DeadLetterEncryption(Mode.BUCKET_DEFAULT, null);
            case "sse-s3" -> new DeadLetterEncryption(Mode.SSE_S3, null);
            case "channel" -> new DeadLetterEncryption(Mode.CHANNEL, null);
            default -> new DeadLetterEncryption(Mode.KEY, Arn.parse("delivery.encryption.dead-letters", setting,
                    "kms", "key/", "bucket-default, sse-s3, channel or arn:aws:kms:REGION:ACCOUNT:key/KEY_ID").toString());
        };
    }

    /** Sets the write's SSE headers, if any. */
    void apply(PutObjectRequest.Builder put, Channel channel) {
        switch (mode) {
            case BUCKET_DEFAULT -> { }
            case SSE_S3 -> put.serverSideEncryption(ServerSideEncryption.AES256);
            case CHANNEL -> {
                if (channel.kmsKeyArn() != null) {
                    put.serverSideEncryption(ServerSideEncryption.AWS_KMS).ssekmsKeyId(channel.kmsKeyArn());
                } else {
                    put.serverSideEncryption(ServerSideEncryption.AES256);
                }
            }
            case KEY -> put.serverSideEncryption(ServerSideEncryption.AWS_KMS).ssekmsKeyId(keyArn);
        }
    }
}
