package io.streamtables.channel;

import io.streamtables.config.DeliveryConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A validated channel with the values every stage needs, resolved from its {@link ChannelDefinition}.
 *
 * @param kmsKeyArn the customer key for SSE-KMS, or null for SSE-S3
 */
public record Channel(
        String arn,
        ChannelDefinition definition,
        Arn streamArn,
        RecordFormat recordFormat,
        String schemaArn,
        int freshnessSeconds,
        String compression,
        TableIdentifier table,
        String partitionSource,
        String dlqBucket,
        String dlqExpectedOwner,
        String dlqPrefix,
        String kmsKeyArn) {

    public enum RecordFormat { JSON, GSR_JSON }

    public static final int DEFAULT_FRESHNESS_SECONDS = 300;
    public static final int MAX_FRESHNESS_SECONDS = 900;
    /** The tag by which a channel accepts an existing table: ACCEPT, or REFUSE (the default). */
    public static final String EXISTING_TABLE_TAG = "delivery:existing-table";
    /**
     * The tag by which a JSON channel decodes with its schema's latest version, looked up again every
     * {@code delivery.schema-registry.latest-refresh}: LATEST,
     * or PINNED (the default: the version pinned when the channel became ACTIVE). GSR_JSON records name their own.
     */
    public static final String SCHEMA_VERSION_TAG = "delivery:schema-version";
    /** Tags per channel, as Kinesis allows per resource. */
    static final int MAX_TAGS = 50;

    private static final Pattern NAME = Pattern.compile("[a-zA-Z0-9_.-]{1,128}");
    private static final Pattern TABLE_NAME = Pattern.compile("[a-z0-9_]{1,255}");
    private static final Set<String> COMPRESSIONS = Set.of("NONE", "ZSTD", "SNAPPY");
    /** S3's bucket naming rules. */
    private static final Pattern BUCKET = Pattern.compile("(?!.*\\.\\.)[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
    /**
     * A DLQ object key is the prefix and at most 406 bytes more (hour folder, channel name, shard id and sequence
     * number at their longest): 512 keeps every key under S3's 1 024 bytes, so no write can fail on its length.
     */
    public static final int MAX_ERROR_OUTPUT_PREFIX_BYTES = 512;
    /** The request field of the channel's role, which is always of the channel's own account. */
    public static final String ROLE_FIELD = "ServiceExecutionRoleARN";

    public String name() {
        return definition.channelName();
    }

    /** The table bucket the channel delivers into: its catalog is that bucket's. */
    public String tableBucketArn() {
        return definition.table().tableBucketArn();
    }

    /** The name in {@link #tableBucketArn()} ({@code arn:aws:s3tables:REGION:ACCOUNT:bucket/NAME}). */
    public String tableBucketName() {
        String arn = tableBucketArn();
        return arn.substring(arn.indexOf(":bucket/") + ":bucket/".length());
    }

    /**
     * Whether the channel delivers into an existing table it did not create when its columns take the schema (its
     * tag {@value #EXISTING_TABLE_TAG}=ACCEPT; by default such a table is refused, as the seed does).
     */
    public boolean acceptsExistingTable() {
        return definition.tags() != null && "ACCEPT".equals(definition.tags().get(EXISTING_TABLE_TAG));
    }

    /** Whether a JSON channel decodes with its schema's latest version (its tag {@value #SCHEMA_VERSION_TAG}=LATEST). */
    public boolean followsLatestSchema() {
        return recordFormat == RecordFormat.JSON && definition.tags() != null
                && "LATEST".equals(definition.tags().get(SCHEMA_VERSION_TAG));
    }

    /**
     * Whether records of that stream are this channel's: one deleted and created again under its name on another
     * stream still finds the first stream's chunks on the bus, of shards with the same ids. A chunk of an earlier
     * release names no stream (null): its channel's.
     */
    public boolean reads(String stream) {
        return stream == null || streamArn.toString().equals(stream);
    }

    /** Where the channel starts reading shards it never read (its tag {@value StartPosition#TAG}). */
    public StartPosition startPosition() {
        try {
            return StartPosition.of(definition.tags());
        } catch (IllegalArgumentException storedBeforeTheTagMeantAnything) {
            return StartPosition.ACTIVATION; // checkLengths refuses such a tag on what is created from now on
        }
    }

    /** The account that owns the channel, from its ARN. */
    public String account() {
        return Arn.accountOf(arn);
    }

    /**
     * The accounts of the resources the channel names (role, stream, schema, table bucket, DLQ bucket owner, KMS
     * key), by request field: a caller may name only its own unless the operator allows cross-account destinations,
     * and its role ({@link #ROLE_FIELD}) only its own whatever the operator allows: every role the service may assume
     * trusts the service, so naming another account's role would read and write as that account.
     */
    public Map<String, String> resourceAccounts() {
        Map<String, String> accounts = new LinkedHashMap<>();
        if (definition.serviceExecutionRoleArn() != null) {
            accounts.put(ROLE_FIELD, Arn.accountOf(definition.serviceExecutionRoleArn()));
        }
        accounts.put("StreamConfigurationList[0].StreamARN", streamArn.account());
        accounts.put("StreamConfigurationList[0].RecordConfiguration.GSRSchemaARN", Arn.accountOf(schemaArn));
        accounts.put("S3TablesConfigurationList[0].TableBucketARN",
                Arn.accountOf(definition.destination().tables().get(0).tableBucketArn()));
        accounts.put("DeadLetterQueueS3Configuration.ExpectedBucketOwner", dlqExpectedOwner);
        if (kmsKeyArn != null) {
            accounts.put("EncryptionConfiguration.KeyId", Arn.accountOf(kmsKeyArn));
        }
        return accounts;
    }

    /** {@link #of(ChannelDefinition, DeliveryConfig, String)} in the operator's account ({@code delivery.account-id}). */
    public static Channel of(ChannelDefinition d, DeliveryConfig config) {
        return of(d, config, config.accountId());
    }

    /**
     * Validates a definition; every error names the field and the rule.
     *
     * @param account the 12-digit account that owns the channel, in its ARN
     * @throws IllegalArgumentException with a message that says what to fix
     */
    public static Channel of(ChannelDefinition d, DeliveryConfig config, String account) {
        String name = d.channelName();
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "ChannelName must be 1-128 characters of letters, digits, '_', '.' and '-'");
        }
        List<ChannelDefinition.StreamConfiguration> streams = d.streamConfigurationList();
        if (streams == null || streams.size() != 1) {
            throw new IllegalArgumentException("StreamConfigurationList must hold exactly one stream");
        }
        Arn stream = Arn.parse("StreamConfigurationList[0].StreamARN", streams.get(0).streamArn(), "kinesis",
                "stream/", "arn:aws:kinesis:REGION:ACCOUNT:stream/NAME");
        ChannelDefinition.RecordConfiguration rc = streams.get(0).recordConfiguration();
        if (rc == null || rc.recordFormatType() == null) {
            throw new IllegalArgumentException(
                    "StreamConfigurationList[0].RecordConfiguration.RecordFormatType is required: JSON or GSR_JSON");
        }
        RecordFormat format;
        try {
            format = RecordFormat.valueOf(rc.recordFormatType());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("StreamConfigurationList[0].RecordConfiguration.RecordFormatType '"
                    + rc.recordFormatType() + "' is not supported for table destinations: use JSON or GSR_JSON");
        }
        Arn schema = Arn.parse("StreamConfigurationList[0].RecordConfiguration.GSRSchemaARN", rc.gsrSchemaArn(),
                "glue", "schema/", "arn:aws:glue:REGION:ACCOUNT:schema/REGISTRY/SCHEMA");
        ChannelDefinition.S3TablesDestinationConfiguration dest = d.destination();
        if (dest == null) {
            throw new IllegalArgumentException("S3TablesDestinationConfiguration is required");
        }
        int freshness = dest.dataFreshnessInSeconds() == null ? DEFAULT_FRESHNESS_SECONDS : dest.dataFreshnessInSeconds();
        checkFreshness(freshness, config);
        ChannelDefinition.DeadLetterQueueConfiguration dlq = dest.deadLetterQueue();
        if (dlq == null) {
            throw new IllegalArgumentException("S3TablesDestinationConfiguration.DeadLetterQueueS3Configuration is required");
        }
        Arn bucket = Arn.parse("DeadLetterQueueS3Configuration.BucketARN", dlq.bucketArn(), "s3", "",
                "arn:aws:s3:::BUCKET");
        if (!BUCKET.matcher(bucket.resource()).matches()) {
            throw new IllegalArgumentException("DeadLetterQueueS3Configuration.BucketARN names bucket '"
                    + bucket.resource() + "', which is not a valid S3 bucket name (3-63 lower-case letters, digits, "
                    + "'.' and '-', starting and ending with a letter or digit)");
        }
        String prefix = dlq.errorOutputPrefix() == null ? "" : dlq.errorOutputPrefix();
        if (prefix.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_ERROR_OUTPUT_PREFIX_BYTES
                || prefix.chars().anyMatch(c -> c < 0x20 || c == 0x7F)) {
            throw new IllegalArgumentException("DeadLetterQueueS3Configuration.ErrorOutputPrefix must be at most "
                    + MAX_ERROR_OUTPUT_PREFIX_BYTES + " bytes of UTF-8 without control characters (S3 keys end at "
                    + "1024 bytes)");
        }
        if (dlq.expectedBucketOwner() == null || !dlq.expectedBucketOwner().matches("\\d{12}")) {
            throw new IllegalArgumentException(
                    "DeadLetterQueueS3Configuration.ExpectedBucketOwner must be a 12-digit account id");
        }
        if (dest.tables() == null || dest.tables().size() != 1) {
            throw new IllegalArgumentException("S3TablesConfigurationList must hold exactly one table");
        }
        ChannelDefinition.TableConfiguration t = dest.tables().get(0);
        Arn tableBucket = Arn.parse("S3TablesConfigurationList[0].TableBucketARN", t.tableBucketArn(), "s3tables",
                "bucket/", "arn:aws:s3tables:REGION:ACCOUNT:bucket/NAME");
        // SPEC C3: stream, table bucket and registry in the service's Region (cross-account is allowed)
        inRegion("StreamConfigurationList[0].StreamARN", stream, config);
        inRegion("StreamConfigurationList[0].RecordConfiguration.GSRSchemaARN", schema, config);
        inRegion("S3TablesConfigurationList[0].TableBucketARN", tableBucket, config);
        for (String[] part : new String[][] {{"Namespace", t.namespace()}, {"TableName", t.tableName()}}) {
            if (part[1] == null || !TABLE_NAME.matcher(part[1]).matches()) {
                throw new IllegalArgumentException("S3TablesConfigurationList[0]." + part[0]
                        + " must be 1-255 lower-case letters, digits and '_'");
            }
        }
        if (t.compressionType() == null || !COMPRESSIONS.contains(t.compressionType())) {
            throw new IllegalArgumentException(
                    "S3TablesConfigurationList[0].CompressionType is required and must be one of NONE, ZSTD, SNAPPY");
        }
        List<ChannelDefinition.PartitionField> fields = t.partitionSpec() == null ? null
                : t.partitionSpec().partitionFields();
        if (fields == null || fields.size() != 1 || !"TIME_HOUR".equals(fields.get(0).transform())
                || fields.get(0).sourceName() == null) {
            throw new IllegalArgumentException("S3TablesConfigurationList[0].PartitionSpec.PartitionFields must hold "
                    + "exactly one field with Transform TIME_HOUR and a SourceName");
        }
        String kmsKey = null;
        ChannelDefinition.EncryptionConfiguration enc = d.encryptionConfiguration();
        if (enc != null && !"KMS".equals(enc.encryptionType()) && !"NONE".equals(enc.encryptionType())) {
            throw new IllegalArgumentException("EncryptionConfiguration.EncryptionType must be KMS (with a KeyId) or "
                    + "NONE (SSE-S3, the default)");
        }
        if (enc != null && "KMS".equals(enc.encryptionType())) {
            kmsKey = Arn.parse("EncryptionConfiguration.KeyId", enc.keyId(), "kms", "key/",
                    "arn:aws:kms:REGION:ACCOUNT:key/KEY_ID (aliases are refused)").toString();
        }
        String arn = "arn:aws:kinesis:" + config.region() + ":" + account + ":channel/" + name;
        return new Channel(arn, d, stream, format, schema.toString(), freshness,
                t.compressionType().toLowerCase(Locale.ROOT),
                TableIdentifier.of(Namespace.of(t.namespace()), t.tableName()), fields.get(0).sourceName(),
                bucket.resource(), dlq.expectedBucketOwner(), prefix, kmsKey);
    }

    /**
     * The members no other rule bounds, at the lengths AWS's models give them: checked on a definition that
     * {@link #of} accepted, when it is created or updated, never on a stored one, so that a limit added in a
     * later release cannot drop a channel that already delivers.
     */
    public static void checkLengths(ChannelDefinition d) {
        ChannelDefinition.LoggingConfiguration logging = d.loggingConfiguration();
        if (logging != null && logging.cloudWatchLogs() != null) {
            maxLength("LoggingConfiguration.CloudWatchLogs.LogGroupName", logging.cloudWatchLogs().logGroupName(), 512);
            maxLength("LoggingConfiguration.CloudWatchLogs.LogStreamName", logging.cloudWatchLogs().logStreamName(), 512);
        }
        maxLength("S3TablesConfigurationList[0].PartitionSpec.PartitionFields[0].SourceName",
                d.destination().tables().get(0).partitionSpec().partitionFields().get(0).sourceName(), 255);
        Map<String, String> tags = d.tags() == null ? Map.of() : d.tags();
        if (tags.size() > MAX_TAGS) {
            throw new IllegalArgumentException("Tags may hold at most " + MAX_TAGS + " tags");
        }
        StartPosition start = StartPosition.of(tags); // the tags that mean something here, checked as the rest
        if (start.kind() == StartPosition.Kind.AT_TIMESTAMP && start.at().isAfter(java.time.Instant.now())) {
            // Kinesis would start at the tip: records before that instant would be delivered
            throw new IllegalArgumentException("Tags: '" + StartPosition.TAG + "' names a time in the future ("
                    + start.at() + "): a channel starts at its activation by default");
        }
        String existing = tags.get(EXISTING_TABLE_TAG);
        if (existing != null && !existing.equals("ACCEPT") && !existing.equals("REFUSE")) {
            throw new IllegalArgumentException("Tags: '" + EXISTING_TABLE_TAG + "' must be ACCEPT (deliver into an "
                    + "existing table whose columns take the schema) or REFUSE (the default)");
        }
        String version = tags.get(SCHEMA_VERSION_TAG);
        if (version != null && !version.equals("LATEST") && !version.equals("PINNED")) {
            throw new IllegalArgumentException("Tags: '" + SCHEMA_VERSION_TAG + "' must be LATEST (a JSON channel "
                    + "decodes with the schema's latest version) or PINNED (the default: the version at activation)");
        }
        if ("LATEST".equals(version) // d is one that of() accepted: it has a record configuration
                && "GSR_JSON".equals(d.streamConfigurationList().get(0).recordConfiguration().recordFormatType())) {
            throw new IllegalArgumentException("Tags: '" + SCHEMA_VERSION_TAG + "=LATEST' is for JSON channels: a "
                    + "GSR_JSON record names its own schema version");
        }
        tags.forEach((key, value) -> {
            if (key.isEmpty() || key.length() > 128 || (value != null && value.length() > 256)) {
                throw new IllegalArgumentException("Tags: a key must be 1-128 characters and a value at most 256 "
                        + "(key '" + key.substring(0, Math.min(key.length(), 128)) + "')");
            }
        });
    }

    /**
     * An IAM role ARN ({@code arn:aws:iam::ACCOUNT:role/NAME}), as AWS's model wants it; required when the service
     * assumes the channels' roles. Checked as {@link #checkLengths} is: on what is created or updated.
     */
    public static void checkRole(String roleArn, boolean required) {
        if (roleArn == null) {
            if (required) {
                throw new IllegalArgumentException("ServiceExecutionRoleARN is required while the service assumes "
                        + "channels' roles (delivery.auth.assume-role=true), for example arn:aws:iam::ACCOUNT:role/NAME");
            }
            return;
        }
        Arn role = Arn.parse("ServiceExecutionRoleARN", roleArn, "iam", "role/", "arn:aws:iam::ACCOUNT:role/NAME");
        if (role.account().isEmpty()) {
            throw new IllegalArgumentException("ServiceExecutionRoleARN '" + roleArn + "' names no account; expected "
                    + "the form arn:aws:iam::ACCOUNT:role/NAME");
        }
    }

    private static void maxLength(String field, String value, int max) {
        if (value != null && value.length() > max) {
            throw new IllegalArgumentException(field + " must be at most " + max + " characters");
        }
    }

    private static void inRegion(String field, Arn arn, DeliveryConfig config) {
        if (!config.region().equals(arn.region())) {
            throw new IllegalArgumentException(field + " is in Region '" + arn.region() + "', but cross-Region "
                    + "delivery is not supported: it must be in " + config.region() + " (delivery.region)");
        }
    }

    static void checkFreshness(int freshness, DeliveryConfig config) {
        int min = config.minDataFreshnessSeconds();
        if (freshness < min || freshness > MAX_FRESHNESS_SECONDS) {
            throw new IllegalArgumentException("S3TablesDestinationConfiguration.DataFreshnessInSeconds must be between "
                    + min + " and " + MAX_FRESHNESS_SECONDS + " (the operator's minimum is delivery.min-data-freshness-seconds)");
        }
    }
}
