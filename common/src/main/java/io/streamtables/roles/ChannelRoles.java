package io.streamtables.roles;

import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelGone;
import io.streamtables.config.AuthConfig;
import io.streamtables.config.AwsClients;
import io.streamtables.config.DeliveryConfig;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.iceberg.aws.AwsProperties;
import org.jboss.logging.Logger;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sts.StsClient;
import software.amazon.awssdk.services.sts.auth.StsAssumeRoleCredentialsProvider;
import software.amazon.awssdk.services.sts.model.StsException;

/**
 * The credentials a channel's AWS calls use. With {@code delivery.auth.assume-role}, those of an STS AssumeRole of
 * the channel's {@code ServiceExecutionRoleARN}: one session per channel and role, named after the channel and
 * renewed by the SDK before it expires, for its Kinesis, DLQ and Glue calls; the table's FileIO has sessions of its
 * own, one per catalog instance ({@link #catalogProperties}). Otherwise the service's own (no override).
 *
 * <p>STS is reached the SDK's standard way: the endpoint from {@code AWS_ENDPOINT_URL_STS} (or
 * {@code -Daws.endpointUrlSts}), the caller's credentials from the default chain, the region
 * {@code delivery.region}. Iceberg's {@code AssumeRoleAwsClientFactory}, which assumes the same role for the table's
 * FileIO, reaches it the same way.
 */
@Singleton
public class ChannelRoles {

    private static final Logger LOG = Logger.getLogger(ChannelRoles.class);
    static final String NO_ROLE = "ServiceExecutionRoleARN is required while the service assumes channels' roles "
            + "(delivery.auth.assume-role=true): delete the channel and create it with one";
    /** An hour, STS's default; the SDK renews a session five minutes before it ends. */
    static final int SESSION_SECONDS = 3600;
    /** STS's limit on RoleSessionName. */
    static final int MAX_SESSION_NAME = 64;
    /** The FileIO's session: one catalog instance serves every channel of a role (and key). */
    static final String TABLES_SESSION = "delivery-tables";
    /** Iceberg's factory, by name: stages without a catalog do not have iceberg-aws. */
    static final String ASSUME_ROLE_FACTORY = "org.apache.iceberg.aws.AssumeRoleAwsClientFactory";
    private static final String ACCOUNT_PLACEHOLDER = "<account>";
    /** STS's answers that no retry changes: the role does not trust the caller, or is not a role. */
    private static final Set<String> FINAL_REFUSALS = Set.of("AccessDenied", "ValidationError");

    private final boolean assumeRole;
    private final Optional<String> externalIdPrefix;
    private final String region;
    private final Supplier<StsClient> stsFactory;
    private volatile StsClient sts;
    private final Map<Session, StsAssumeRoleCredentialsProvider> sessions = new ConcurrentHashMap<>();

    private record Session(String channelArn, String roleArn, String name, String externalId) {
    }

    @Inject
    public ChannelRoles(AuthConfig auth, DeliveryConfig delivery) {
        this(auth.assumeRole(), auth.externalId(), delivery.region(), () -> AwsClients.bounded(StsClient.builder()
                .httpClientBuilder(AwsClients.httpClient())
                .region(Region.of(delivery.region())))
                .build());
    }

    ChannelRoles(boolean assumeRole, Optional<String> externalId, String region, Supplier<StsClient> sts) {
        this.assumeRole = assumeRole;
        this.externalIdPrefix = externalId;
        this.region = region;
        this.stsFactory = sts;
        if (assumeRole) {
            LOG.infof("delivery.auth.assume-role=true: each channel reads, writes and looks up schemas as its "
                    + "ServiceExecutionRoleARN, with the external id %s", externalId(ACCOUNT_PLACEHOLDER));
        }
    }

    /**
     * The channel's credentials, or null when the service calls AWS as itself.
     *
     * @throws IllegalStateException when the channel names no role (created before roles were switched on)
     */
    public AwsCredentialsProvider credentials(Channel channel) {
        if (!assumeRole) {
            return null;
        }
        return sessions.computeIfAbsent(new Session(channel.arn(), role(channel), sessionName(channel),
                externalId(channel.account())), this::session);
    }

    /** Who reads and writes the channel's resources, for the reasons that ask to grant it access. */
    public String identity(Channel channel) {
        return assumeRole ? "its ServiceExecutionRoleARN " + channel.definition().serviceExecutionRoleArn()
                : "the service";
    }

    /** What makes one request of a shared client sign as the channel; null (the client's own) when roles are off. */
    public AwsRequestOverrideConfiguration override(Channel channel) {
        AwsCredentialsProvider credentials = credentials(channel);
        return credentials == null ? null
                : AwsRequestOverrideConfiguration.builder().credentialsProvider(credentials).build();
    }

    /**
     * Assumes the channel's role once, as a CREATING channel's check.
     *
     * @return null when it can be assumed (or roles are off), else why not, saying what to fix
     * @throws software.amazon.awssdk.core.exception.SdkException when STS cannot be reached or fails: ask again later
     */
    public String problem(Channel channel) {
        if (!assumeRole) {
            return null;
        }
        if (channel.definition().serviceExecutionRoleArn() == null) {
            return NO_ROLE;
        }
        try {
            credentials(channel).resolveCredentials();
            return null;
        } catch (StsException e) {
            String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
            if (!FINAL_REFUSALS.contains(code)) {
                throw e; // the service's own credentials, STS's Region or STS itself: retried, logged
            }
            String message = e.awsErrorDetails().errorMessage();
            return "ServiceExecutionRoleARN " + channel.definition().serviceExecutionRoleArn() + " cannot be assumed ("
                    + code + ": " + message + "): its trust policy must let the service's identity call "
                    + "sts:AssumeRole with the external id " + externalId(channel.account());
        }
    }

    /**
     * The catalog properties under which Iceberg's own client factory gives the channel's table FileIO its role,
     * in a session of the role's catalog instance; none when roles are off.
     *
     * @throws IllegalStateException when the channel names no role
     */
    public Map<String, String> catalogProperties(Channel channel) {
        if (!assumeRole) {
            return Map.of();
        }
        Map<String, String> properties = new TreeMap<>();
        properties.put(AwsProperties.CLIENT_FACTORY, ASSUME_ROLE_FACTORY);
        properties.put(AwsProperties.CLIENT_ASSUME_ROLE_ARN, role(channel));
        properties.put(AwsProperties.CLIENT_ASSUME_ROLE_REGION, region);
        properties.put(AwsProperties.CLIENT_ASSUME_ROLE_SESSION_NAME, TABLES_SESSION);
        properties.put(AwsProperties.CLIENT_ASSUME_ROLE_TIMEOUT_SEC, String.valueOf(SESSION_SECONDS));
        properties.put(AwsProperties.CLIENT_ASSUME_ROLE_EXTERNAL_ID, externalId(channel.account()));
        return properties;
    }

    /**
     * The external id of the channel account's AssumeRole calls: {@code delivery.auth.external-id} followed by the
     * account ({@code <id>-111122223333}), or the account alone. One per account, so that a role's trust policy that
     * asks for it admits only its own account's channels, whatever another tenant names.
     */
    String externalId(String account) {
        return externalIdPrefix.map(prefix -> prefix + "-" + account).orElse(account);
    }

    /** Names the channel in the role's CloudTrail entries; channel names use only characters STS allows. */
    static String sessionName(Channel channel) {
        String name = "delivery-" + channel.name();
        return name.length() <= MAX_SESSION_NAME ? name : name.substring(0, MAX_SESSION_NAME);
    }

    private static String role(Channel channel) {
        if (channel.definition().serviceExecutionRoleArn() == null) {
            throw new IllegalStateException(channel.arn() + ": " + NO_ROLE);
        }
        return channel.definition().serviceExecutionRoleArn();
    }

    private StsAssumeRoleCredentialsProvider session(Session session) {
        return StsAssumeRoleCredentialsProvider.builder()
                .stsClient(sts())
                .refreshRequest(r -> r.roleArn(session.roleArn()).roleSessionName(session.name())
                        .durationSeconds(SESSION_SECONDS).externalId(session.externalId()))
                .build();
    }

    private StsClient sts() {
        if (sts == null) {
            synchronized (this) {
                if (sts == null) {
                    sts = stsFactory.get();
                }
            }
        }
        return sts;
    }

    /** A deleted channel's sessions go with it: each holds a renewal of its own. */
    void forget(@Observes ChannelGone gone) {
        sessions.entrySet().removeIf(session -> {
            boolean ofIt = session.getKey().channelArn().equals(gone.arn());
            if (ofIt) {
                session.getValue().close();
            }
            return ofIt;
        });
    }

    /** The sessions held, for the tests: one per channel and role. */
    int sessionCount() {
        return sessions.size();
    }

    @PreDestroy
    void close() {
        sessions.values().forEach(StsAssumeRoleCredentialsProvider::close);
        if (sts != null) {
            sts.close();
        }
    }
}
