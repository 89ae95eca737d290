package io.streamtables.commit;

import io.streamtables.catalog.Catalogs;
import io.streamtables.catalog.S3TablesControl;
import io.streamtables.channel.Channel;
import io.streamtables.config.AwsClients;
import io.streamtables.roles.ChannelRoles;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.iceberg.Schema;
import org.jboss.logging.Logger;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3tables.S3TablesClient;
import software.amazon.awssdk.services.s3tables.model.ConflictException;
import software.amazon.awssdk.services.s3tables.model.EncryptionConfiguration;
import software.amazon.awssdk.services.s3tables.model.IcebergMetadata;
import software.amazon.awssdk.services.s3tables.model.IcebergSchema;
import software.amazon.awssdk.services.s3tables.model.OpenTableFormat;
import software.amazon.awssdk.services.s3tables.model.S3TablesException;
import software.amazon.awssdk.services.s3tables.model.SSEAlgorithm;
import software.amazon.awssdk.services.s3tables.model.SchemaField;
import software.amazon.awssdk.services.s3tables.model.TableMetadata;

/**
 * Creates the table of a channel with a KMS key of its own in an S3 Tables bucket through S3 Tables' CreateTable,
 * whose {@code encryptionConfiguration} makes the key the table's (S3 Tables checks it as
 * {@code s3tables:PutTableEncryption}); Iceberg's REST endpoint has no way to say it. CreateTable takes primitive
 * top-level columns and properties only: the table is marked {@link TableOpener#SETUP_PROPERTY pending}, and
 * {@link TableOpener} gives it the rest of the schema and its partition spec through Iceberg.
 */
@Singleton
class S3TablesCreation {

    private static final Logger LOG = Logger.getLogger(S3TablesCreation.class);

    private final Catalogs catalogs;
    /** What makes a call sign as the channel's role ({@link ChannelRoles#override}). */
    private final Function<Channel, AwsRequestOverrideConfiguration> asChannel;
    private final Map<S3TablesControl, S3TablesClient> clients = new ConcurrentHashMap<>();

    @Inject
    S3TablesCreation(Catalogs catalogs, ChannelRoles roles) {
        this(catalogs, roles::override);
    }

    S3TablesCreation(Catalogs catalogs, Function<Channel, AwsRequestOverrideConfiguration> asChannel) {
        this.catalogs = catalogs;
        this.asChannel = asChannel;
    }

    /** What creates the channel's table, when it is created here (an S3 Tables bucket, a key of its own); else null. */
    TableOpener.OwnCreation forChannel(Channel channel) {
        return channel.kmsKeyArn() != null && catalogs.s3TablesControl(channel).isPresent() ? this::create : null;
    }

    /**
     * @throws TableOpener.TableRefusedException when S3 Tables refuses (401, 403)
     */
    void create(Channel channel, Schema schema, Map<String, String> properties) {
        S3TablesControl control = catalogs.s3TablesControl(channel).orElseThrow();
        try {
            client(control).createTable(r -> r.tableBucketARN(channel.tableBucketArn())
                    .namespace(channel.table().namespace().toString())
                    .name(channel.table().name())
                    .format(OpenTableFormat.ICEBERG)
                    .encryptionConfiguration(EncryptionConfiguration.builder().sseAlgorithm(SSEAlgorithm.AWS_KMS)
                            .kmsKeyArn(channel.kmsKeyArn()).build())
                    .metadata(TableMetadata.builder().iceberg(IcebergMetadata.builder()
                            .schema(IcebergSchema.builder().fields(fields(schema)).build())
                            .properties(properties).build()).build())
                    .overrideConfiguration(asChannel.apply(channel)));
            LOG.infof("Channel %s: created table %s in S3 Tables with its key %s", channel.arn(), channel.table(),
                    channel.kmsKeyArn());
        } catch (ConflictException raced) {
            // another instance created it first
        } catch (S3TablesException e) {
            if (e.statusCode() == 401 || e.statusCode() == 403) {
                throw new TableOpener.TableRefusedException(e);
            }
            throw e;
        }
    }

    /** The columns CreateTable takes: the top-level primitive ones, by Iceberg's name of their type. */
    static List<SchemaField> fields(Schema schema) {
        return schema.columns().stream().filter(column -> column.type().isPrimitiveType())
                .map(column -> SchemaField.builder().name(column.name()).type(column.type().toString())
                        .required(column.isRequired()).build())
                .toList();
    }

    private S3TablesClient client(S3TablesControl control) {
        return clients.computeIfAbsent(control, c -> {
            var builder = AwsClients.bounded(S3TablesClient.builder().httpClientBuilder(AwsClients.httpClient())
                    .region(Region.of(c.region())).endpointOverride(c.endpoint()));
            Optional.ofNullable(c.keys()).map(S3TablesCreation::credentials)
                    .ifPresent(keys -> builder.credentialsProvider(StaticCredentialsProvider.create(keys)));
            return builder.build();
        });
    }

    private static AwsCredentials credentials(S3TablesControl.Keys keys) {
        return keys.sessionToken() == null ? AwsBasicCredentials.create(keys.accessKeyId(), keys.secretAccessKey())
                : AwsSessionCredentials.create(keys.accessKeyId(), keys.secretAccessKey(), keys.sessionToken());
    }

    @PreDestroy
    void close() {
        clients.values().forEach(S3TablesClient::close);
    }
}
