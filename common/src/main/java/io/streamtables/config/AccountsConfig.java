package io.streamtables.config;

import io.quarkus.arc.Unremovable;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithParentName;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where the service may write for each tenant account while it writes as itself ({@code delivery.auth.assume-role}
 * off): S3-compatible stores ignore {@code x-amz-expected-bucket-owner} and a bucket ARN names no account, so only the
 * operator can say which buckets and log groups are an account's (docs/OPERATING.md "Authentication").
 */
@Unremovable // registered in every service: one configuration file serves all of them
@ConfigMapping(prefix = "delivery.accounts")
public interface AccountsConfig {

    /** By 12-digit account id: {@code delivery.accounts."111122223333".dlq-buckets=...}. */
    @WithParentName
    Map<String, Account> byId();

    interface Account {

        /** The DLQ bucket names the account's channels may name. */
        Optional<List<String>> dlqBuckets();

        /** The CloudWatch log groups its channels may log to: names, or prefixes ending with {@code *}. */
        Optional<List<String>> logGroups();
    }
}
