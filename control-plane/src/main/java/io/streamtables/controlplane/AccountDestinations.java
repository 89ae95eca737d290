package io.streamtables.controlplane;

import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelDefinition;
import io.streamtables.config.AccountsConfig;
import io.streamtables.config.AuthConfig;
import io.streamtables.config.CloudWatchConfig;
import io.streamtables.config.DeliveryConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.List;

/**
 * Where a tenant's channel may have the service write as itself: while channels do not assume their roles, the
 * dead letters and delivery log lines of another account than the operator's go only to the DLQ buckets and log
 * groups the operator listed for it ({@link AccountsConfig}); otherwise a tenant could name another tenant's bucket
 * (or the warehouse's) and a prefix of its choosing, or any log group of the operator's account. With roles on, the
 * channel's role decides, as on AWS.
 */
@ApplicationScoped
public class AccountDestinations {

    private final boolean assumeRole;
    private final boolean shipsLogs;
    private final String operatorAccount;
    private final AccountsConfig accounts;

    @Inject
    public AccountDestinations(AuthConfig auth, CloudWatchConfig cloudWatch, DeliveryConfig delivery,
            AccountsConfig accounts) {
        this(auth.assumeRole(), cloudWatch.logs().enabled(), delivery.accountId(), accounts);
    }

    AccountDestinations(boolean assumeRole, boolean shipsLogs, String operatorAccount, AccountsConfig accounts) {
        this.assumeRole = assumeRole;
        this.shipsLogs = shipsLogs;
        this.operatorAccount = operatorAccount;
        this.accounts = accounts;
    }

    /** Why the service may not write the channel's dead letters or log lines where it names, or null. */
    public String problem(Channel channel) {
        String account = channel.account();
        if (writesAsItself(account)) {
            List<String> buckets = allowed(account).flatMap(AccountsConfig.Account::dlqBuckets).orElse(List.of());
            if (!buckets.contains(channel.dlqBucket())) {
                return "DeadLetterQueueS3Configuration.BucketARN arn:aws:s3:::" + channel.dlqBucket() + " is not a "
                        + "DLQ bucket the operator allows account " + account + " (" + setting(account)
                        + "dlq-buckets): the service writes dead letters with its own credentials, so only the "
                        + "operator can say a bucket is yours";
            }
        }
        return problem(account, channel.definition().loggingConfiguration());
    }

    /** Why the service may not write the account's delivery log where {@code logging} names, or null. */
    public String problem(String account, ChannelDefinition.LoggingConfiguration logging) {
        ChannelDefinition.CloudWatchLogs target = logging == null ? null : logging.cloudWatchLogs();
        if (!writesAsItself(account) || !shipsLogs || target == null || !Boolean.TRUE.equals(target.enabled())) {
            return null;
        }
        String group = String.valueOf(target.logGroupName());
        List<String> groups = allowed(account).flatMap(AccountsConfig.Account::logGroups).orElse(List.of());
        if (groups.stream().noneMatch(g -> g.endsWith("*") ? group.startsWith(g.substring(0, g.length() - 1))
                : g.equals(group))) {
            return "LoggingConfiguration.CloudWatchLogs.LogGroupName " + group + " is not a log group the operator "
                    + "allows account " + account + " (" + setting(account) + "log-groups): the service writes "
                    + "delivery logs with its own credentials, so only the operator can say a log group is yours";
        }
        return null;
    }

    private boolean writesAsItself(String account) {
        return !assumeRole && !account.equals(operatorAccount);
    }

    private java.util.Optional<AccountsConfig.Account> allowed(String account) {
        return java.util.Optional.ofNullable(accounts.byId().get(account));
    }

    private static String setting(String account) {
        return "delivery.accounts.\"" + account + "\".";
    }
}
