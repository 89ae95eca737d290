package io.streamtables.controlplane;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelDefinition;
import io.streamtables.config.AccountsConfig;
import java.util.Map;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Test;

/**
 * The operator's lists of where the service writes for a tenant while it writes as itself: before, a tenant's
 * channel could name any bucket (another tenant's, the warehouse's) and any log group of the operator's account.
 */
class AccountDestinationsTest {

    static final String OPERATOR = "000000000000";
    static final String TENANT = "111111111111";

    static AccountsConfig accounts(Map<String, String> settings) {
        return new SmallRyeConfigBuilder().withMapping(AccountsConfig.class)
                .withSources(new PropertiesConfigSource(settings, "test", 400)).build()
                .getConfigMapping(AccountsConfig.class);
    }

    static final AccountsConfig LISTED = accounts(Map.of(
            "delivery.accounts.\"111111111111\".dlq-buckets", "tenant-dlq,tenant-dlq-2",
            "delivery.accounts.\"111111111111\".log-groups", "/tenants/111111111111/*,/aws/kinesis/exact"));

    @Test
    void aTenantWritesOnlyWhereTheOperatorListedForIt() {
        AccountDestinations destinations = new AccountDestinations(false, true, OPERATOR, LISTED);
        assertNull(destinations.problem(channel(TENANT, "tenant-dlq-2", "/tenants/111111111111/orders")));
        assertNull(destinations.problem(channel(TENANT, "tenant-dlq", "/aws/kinesis/exact")));
        String bucket = destinations.problem(channel(TENANT, "warehouse", null));
        assertTrue(bucket.startsWith("DeadLetterQueueS3Configuration.BucketARN arn:aws:s3:::warehouse is not a DLQ "
                + "bucket the operator allows account 111111111111 (delivery.accounts.\"111111111111\".dlq-buckets)"),
                bucket);
        String group = destinations.problem(channel(TENANT, "tenant-dlq", "/tenants/222222222222/orders"));
        assertTrue(group.startsWith("LoggingConfiguration.CloudWatchLogs.LogGroupName /tenants/222222222222/orders "
                + "is not a log group"), group);
        assertTrue(destinations.problem(channel(TENANT, "tenant-dlq", "/aws/kinesis/exactly")) != null, "no prefix");
        assertTrue(destinations.problem(channel("222222222222", "tenant-dlq", null)) != null, "an account unlisted");
    }

    @Test
    void theOperatorsAccountAndChannelsOfTheirOwnRolesAreNotListed() {
        assertNull(new AccountDestinations(false, true, OPERATOR, LISTED).problem(channel(OPERATOR, "any", "/any")));
        assertNull(new AccountDestinations(true, true, OPERATOR, LISTED).problem(channel(TENANT, "any", "/any")));
        assertNull(new AccountDestinations(false, false, OPERATOR, LISTED)
                .problem(channel(TENANT, "tenant-dlq", "/any")), "no log is shipped to CloudWatch");
    }

    static Channel channel(String account, String bucket, String logGroup) {
        ChannelDefinition.LoggingConfiguration logging = logGroup == null ? null
                : new ChannelDefinition.LoggingConfiguration(new ChannelDefinition.CloudWatchLogs(true, logGroup,
                        "DestinationDelivery"));
        return new Channel("arn:aws:kinesis:us-east-1:" + account + ":channel/c",
                new ChannelDefinition("c", null, null, null, logging, null, null), null, Channel.RecordFormat.JSON,
                null, 1, "NONE", TableIdentifier.of("ns", "c"), null, bucket, account, "errors/", null);
    }
}
