package io.streamtables.controlplane;

import io.streamtables.channel.Channel;
import io.streamtables.config.AwsClients;
import io.streamtables.config.DeliveryConfig;
import io.streamtables.config.KmsConfig;
import io.streamtables.config.Secrets;
import io.streamtables.roles.ChannelRoles;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.regex.Pattern;
import org.jboss.logging.Logger;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.kms.KmsClient;
import software.amazon.awssdk.services.kms.model.KmsException;
import software.amazon.awssdk.services.kms.model.KeyManagerType;

/**
 * Whether a KMS key a channel names is an AWS managed key, which a delivery cannot use (SPEC E2): by its alias
 * ({@code alias/aws/...}), or, for a key named by its ARN or id, as KMS's DescribeKey tells the channel's role.
 */
@ApplicationScoped
class AwsManagedKeys {

    private static final Logger LOG = Logger.getLogger(AwsManagedKeys.class);
    private static final Pattern AWS_ALIAS = Pattern.compile("(arn:aws[a-z-]*:kms:[a-z0-9-]+:\\d{12}:)?alias/aws/.+");

    private final KmsClient kms; // null: DescribeKey is not asked
    private final ChannelRoles roles;

    AwsManagedKeys(KmsConfig config, DeliveryConfig delivery, ChannelRoles roles) {
        this.kms = config.describeKeys() ? AwsClients.build(KmsClient.builder(), config, "delivery.kms",
                delivery.region()) : null;
        this.roles = roles;
    }

    @PreDestroy
    void close() {
        if (kms != null) {
            kms.close();
        }
    }

    /** An alias of AWS's own ({@code alias/aws/kinesis}, or that alias's ARN). */
    static boolean awsAlias(String keyId) {
        return keyId != null && AWS_ALIAS.matcher(keyId).matches();
    }

    /**
     * True when the key is AWS managed. A key KMS refuses to describe to the channel's role (no {@code
     * kms:DescribeKey}, a key of another account) is taken as customer managed, and the log says so: its use fails
     * later if it is not.
     *
     * @throws SdkException when KMS cannot be reached or fails (5xx): the channel's checks run again later
     */
    boolean awsManaged(Channel channel, String keyId) {
        if (awsAlias(keyId)) {
            return true;
        }
        if (kms == null || keyId == null) {
            return false;
        }
        try {
            return kms.describeKey(r -> r.overrideConfiguration(roles.override(channel)).keyId(keyId)).keyMetadata()
                    .keyManager() == KeyManagerType.AWS;
        } catch (KmsException e) {
            if (e.statusCode() >= 500) {
                throw e;
            }
            LOG.warnf("Channel %s: KMS does not describe key %s to %s (%s); taken as customer managed. Grant it "
                    + "kms:DescribeKey on the key, or set delivery.kms.describe-keys=false where no KMS answers",
                    channel.arn(), keyId, roles.identity(channel), Secrets.redact(e.getMessage()));
            return false;
        }
    }
}
