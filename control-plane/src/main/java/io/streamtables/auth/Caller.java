package io.streamtables.auth;

/**
 * Who sent a request, once its signature checked out: the key it signed with and the account it acts for. The
 * one home of the account rule: a caller reads and changes its own account's channels and schemas; the stages'
 * own principal ({@link io.streamtables.config.AuthConfig#SERVICE_PRINCIPAL}) also reads every account's schemas,
 * since it decodes every account's channels.
 *
 * @param accessKeyId null when the API is open ({@code delivery.auth.mode=none})
 */
public record Caller(String accessKeyId, String accountId, boolean readsEveryAccount) {

    /** Whether the caller may change, list or see the channels of {@code account}'s resources. */
    public boolean owns(String account) {
        return accountId.equals(account);
    }

    /** Whether the caller may read a schema of {@code account}. */
    public boolean mayRead(String account) {
        return readsEveryAccount || owns(account);
    }
}
