package io.streamtables.controlplane;

import io.streamtables.catalog.Catalogs;
import io.streamtables.catalog.DeliveryTables;
import io.streamtables.channel.Channel;
import io.streamtables.config.AwsClients;
import io.streamtables.config.DeliveryConfig;
import io.streamtables.config.KinesisConfig;
import io.streamtables.config.Secrets;
import io.streamtables.roles.ChannelRoles;
import io.streamtables.schema.ChannelSchema;
import io.streamtables.schema.ChannelSchemas;
import io.streamtables.schema.SchemaSource;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.UUID;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.BadRequestException;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.NoSuchWarehouseException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.jboss.logging.Logger;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.EncryptionType;
import software.amazon.awssdk.services.kinesis.model.ResourceNotFoundException;
import software.amazon.awssdk.services.kinesis.model.StreamDescriptionSummary;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** What a CREATING channel needs before it delivers (SPEC C4): its role, schema, stream, DLQ bucket and table. */
@ApplicationScoped
class ChannelChecks {

    private static final Logger LOG = Logger.getLogger(ChannelChecks.class);

    private final ChannelSchemas schemas;
    private final KinesisClient kinesis;
    private final S3Client s3;
    private final Catalogs catalogs;
    private final ChannelRoles roles;
    private final AwsManagedKeys keys;

    ChannelChecks(ChannelSchemas schemas, KinesisConfig kinesis, DeliveryConfig delivery, S3Client s3,
            Catalogs catalogs, ChannelRoles roles, AwsManagedKeys keys) {
        this.schemas = schemas;
        this.roles = roles;
        this.keys = keys;
        this.kinesis = AwsClients.build(KinesisClient.builder(), kinesis, "delivery.kinesis", delivery.region());
        this.s3 = s3;
        this.catalogs = catalogs;
    }

    @PreDestroy
    void close() {
        kinesis.close();
    }

    /**
     * The answer of the checks: a problem saying what to fix (the channel goes FAILED), or none and the schema version
     * the channel is to decode with (its latest now).
     */
    record Verdict(String problem, UUID schemaVersionId) {
        static Verdict failed(String problem) {
            return new Verdict(problem, null);
        }
    }

    /**
     * @throws RuntimeException when a peer cannot be reached: check again later
     */
    Verdict check(Channel channel) {
        String role = roles.problem(channel); // the checks below then run as the channel's role
        if (role != null) {
            return Verdict.failed(role);
        }
        ChannelSchema schema;
        try {
            schema = schemas.resolve(channel); // not the cache: another channel may have read it as another role
        } catch (SchemaSource.RegistryUnavailableException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            return Verdict.failed(ChannelSchemas.problem(channel, e));
        }
        StreamDescriptionSummary stream;
        try {
            stream = kinesis.describeStreamSummary(r -> r.overrideConfiguration(roles.override(channel))
                    .streamARN(channel.streamArn().toString())).streamDescriptionSummary();
        } catch (ResourceNotFoundException e) {
            return Verdict.failed("StreamARN " + channel.streamArn() + " does not exist: create the stream or correct "
                    + "StreamConfigurationList[0].StreamARN");
        }
        if (stream.encryptionType() == EncryptionType.KMS && keys.awsManaged(channel, stream.keyId())) {
            return Verdict.failed("StreamARN " + channel.streamArn() + " is encrypted with the AWS managed key "
                    + "aws/kinesis, which a delivery cannot be granted: encrypt the stream with a customer managed "
                    + "key, then create the channel again");
        }
        if (channel.kmsKeyArn() != null && keys.awsManaged(channel, channel.kmsKeyArn())) {
            return Verdict.failed("EncryptionConfiguration.KeyId " + channel.kmsKeyArn() + " is an AWS managed key, "
                    + "which a delivery cannot use: give the ARN of a customer managed key");
        }
        String dlq = dlqProblem(channel);
        if (dlq != null) {
            return Verdict.failed(dlq);
        }
        Verdict ready = new Verdict(null, schema.versionId());
        try {
            Table table = catalogs.forReading(channel).loadTable(channel.table());
            String problem = DeliveryTables.deliveryProblem(table, channel, schema.iceberg(), catalogs.shared(channel));
            return problem == null ? ready : Verdict.failed(problem);
        } catch (NoSuchTableException | NoSuchNamespaceException e) {
            return ready; // the first delivery creates it (SPEC S7)
        } catch (NotAuthorizedException | ForbiddenException | BadRequestException | NoSuchWarehouseException
                | IllegalArgumentException | UnsupportedOperationException e) {
            // the bucket's catalog cannot be built or refuses us: no retry changes that
            return Verdict.failed(catalogProblem(channel, e));
        }
    }

    /**
     * Why the bucket's catalog cannot be used, as the tenant may read it: an S3 Tables bucket's endpoint is the
     * tenant's and its refusal is theirs to fix; a catalog the operator configured is the operator's (its settings,
     * hosts and errors), which the log names instead.
     */
    private String catalogProblem(Channel channel, RuntimeException e) {
        String field = "S3TablesConfigurationList[0].TableBucketARN " + channel.tableBucketArn();
        if (catalogs.maintainsItsTables(channel)) { // the bucket is in Amazon S3 Tables: its endpoint answers for it
            return field + ": its S3 Tables endpoint refuses the service: " + Secrets.redact(e.getMessage());
        }
        LOG.errorf("Channel %s: the catalog of table bucket %s (%s) cannot be used: %s; configure "
                + "delivery.table-buckets.%s.* or have the ARN corrected", channel.arn(), channel.tableBucketArn(),
                catalogs.describe(channel), Secrets.redact(e.getMessage()), channel.tableBucketName());
        return field + ": the service cannot use this table bucket's catalog; correct the ARN, or ask the operator "
                + "(the service's log names the cause)";
    }

    private String dlqProblem(Channel channel) {
        try {
            s3.headBucket(r -> r.overrideConfiguration(roles.override(channel)).bucket(channel.dlqBucket())
                    .expectedBucketOwner(channel.dlqExpectedOwner()));
            return null;
        } catch (S3Exception e) {
            if (e.statusCode() == 404) { // NoSuchBucket; HEAD answers have no error body
                return "DeadLetterQueueS3Configuration.BucketARN: bucket " + channel.dlqBucket() + " does not exist: "
                        + "create it or correct the BucketARN";
            }
            if (e.statusCode() == 403) {
                return "DeadLetterQueueS3Configuration: bucket " + channel.dlqBucket() + " refused access (403): it "
                        + "must belong to ExpectedBucketOwner " + channel.dlqExpectedOwner()
                        + " and let " + roles.identity(channel) + " write to it";
            }
            throw e;
        }
    }
}
