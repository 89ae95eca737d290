package io.streamtables.auth;

/** Who sent a request, once its signature checked out: the key it signed with and the account it acts for. */
public record Caller(String accessKeyId, String accountId) {
}
