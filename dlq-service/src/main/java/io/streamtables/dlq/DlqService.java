package io.streamtables.dlq;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.smallrye.reactive.messaging.annotations.Blocking;
import io.streamtables.bus.DlqAck;
import io.streamtables.bus.DlqBatch;
import io.streamtables.bus.Reject;
import io.streamtables.bus.Topics;
import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelRegistry;
import io.streamtables.channel.DeliveryLog;
import io.streamtables.config.EncryptionConfig;
import io.streamtables.metrics.DeliveryMetrics;
import io.streamtables.roles.ChannelRoles;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Outgoing;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The DLQ stage: stores each batch of rejects as one JSON Lines object in the channel's DLQ bucket, with the
 * expected-bucket-owner header and the encryption {@link DeadLetterEncryption} says, and acknowledges it to the commit stage.
 */
@ApplicationScoped
public class DlqService {

    private static final Logger LOG = Logger.getLogger(DlqService.class);

    private final S3Client s3;
    private final ChannelRegistry channels;
    private final ObjectMapper json;
    private final DeadLetterEncryption encryption;

    private final DeliveryMetrics metrics;
    private final ChannelRoles roles;

    public DlqService(S3Client s3, ChannelRegistry channels, ObjectMapper json, EncryptionConfig encryption,
            DeliveryMetrics metrics, ChannelRoles roles) {
        this.s3 = s3;
        this.roles = roles;
        this.metrics = metrics;
        this.encryption = DeadLetterEncryption.of(encryption.deadLetters(), encryption.sseHeaders());
        this.channels = channels;
        this.json = json;
    }

    /**
     * In the order the batches arrive, one at a time. Every batch of one key holds the same entries (the commit
     * stage publishes only committed cuts, docs/DESIGN.md), so the order no longer decides what an object holds; it
     * keeps a shard's objects in the order of its commits.
     */
    @Incoming(Topics.DLQ)
    @Outgoing(Topics.DLQ_ACKS)
    @Blocking
    public DlqAck store(DlqBatch batch) {
        try {
            return store(channels.channel(batch.channelArn()), batch);
        } catch (RuntimeException e) {
            LOG.warnf("Storing dead letters %s failed: %s", batch.objectKey(), e.getMessage());
            return DlqAck.failed(batch, e.getClass().getSimpleName() + ": " + e.getMessage(), false);
        }
    }

    private DlqAck store(Channel channel, DlqBatch batch) {
        PutObjectRequest.Builder put = PutObjectRequest.builder()
                .bucket(channel.dlqBucket())
                .key(batch.objectKey())
                .expectedBucketOwner(channel.dlqExpectedOwner())
                .contentType("application/x-ndjson")
                .overrideConfiguration(roles.override(channel));
        encryption.apply(put, channel);
        try {
            s3.putObject(put.build(), RequestBody.fromBytes(jsonLines(batch)));
        } catch (S3Exception e) {
            if (e.statusCode() != 403 && e.statusCode() != 404) {
                throw e;
            }
            String refusal = "the DLQ bucket " + channel.dlqBucket() + " refused a write (" + e.statusCode()
                    + (e.awsErrorDetails() == null ? "" : " " + e.awsErrorDetails().errorCode()) + ")";
            String cause = confirmedCause(channel);
            if (cause == null) {
                // an expired session, clock skew, a policy being changed: not final until the bucket shows why
                String reason = refusal + "; it exists and belongs to ExpectedBucketOwner " + channel.dlqExpectedOwner()
                        + ", so the write is retried (" + roles.identity(channel) + " needs s3:PutObject on it)";
                LOG.warnf("Storing dead letters %s: %s", batch.objectKey(), reason);
                DeliveryLog.log(channel, DeliveryLog.Event.DEAD_LETTERS_FAILED, Map.of("error", reason));
                return DlqAck.failed(batch, reason, false);
            }
            // SPEC C4: a bucket gone or of another owner than ExpectedBucketOwner is final (SUSPENDED)
            String reason = refusal + ": " + cause;
            LOG.errorf("Storing dead letters %s: %s", batch.objectKey(), reason);
            DeliveryLog.log(channel, DeliveryLog.Event.DEAD_LETTERS_FAILED, Map.of("error", reason));
            return DlqAck.failed(batch, reason, true);
        }
        LOG.infof("Stored %d dead letters of %s in s3://%s/%s", batch.rejects().size(), channel.name(),
                channel.dlqBucket(), batch.objectKey());
        DeliveryLog.log(channel, DeliveryLog.Event.DEAD_LETTERS_STORED, Map.of("count", batch.rejects().size(),
                "object", "s3://" + channel.dlqBucket() + "/" + batch.objectKey()));
        metrics.handedOn("dlq", channel.arn(),
                batch.rejects().stream().mapToLong(Reject::arrivalMillis).min().orElse(0));
        return DlqAck.stored(batch);
    }

    /**
     * Why the bucket refuses writes for good, as HeadBucket shows it: it is gone, or it belongs to another account
     * than ExpectedBucketOwner (S3 refuses a request expecting another owner with 403, and answers one that expects
     * none); null when it cannot be shown, and the write is to be retried.
     */
    private String confirmedCause(Channel channel) {
        try {
            s3.headBucket(h -> h.bucket(channel.dlqBucket()).expectedBucketOwner(channel.dlqExpectedOwner())
                    .overrideConfiguration(roles.override(channel)));
            return null;
        } catch (S3Exception expectingOwner) {
            if (expectingOwner.statusCode() == 404) {
                return "the bucket does not exist";
            }
            if (expectingOwner.statusCode() != 403) {
                return null;
            }
        }
        try {
            s3.headBucket(h -> h.bucket(channel.dlqBucket()).overrideConfiguration(roles.override(channel)));
            return "it belongs to another account than ExpectedBucketOwner " + channel.dlqExpectedOwner()
                    + "";
        } catch (S3Exception unknown) {
            return null; // refused either way: the role may not read it, or its session is not valid now
        }
    }

    private byte[] jsonLines(DlqBatch batch) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            for (Reject r : batch.rejects()) {
                out.write(json.writeValueAsBytes(DeadLetterEntry.of(batch.channelArn(), r)));
                out.write('\n');
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
