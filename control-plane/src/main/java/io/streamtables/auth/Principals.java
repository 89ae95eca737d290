package io.streamtables.auth;

import io.streamtables.config.AuthConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/** The configured callers by access key id, each checked once at start-up so that a typo fails loudly. */
final class Principals {

    private static final Pattern ACCESS_KEY_ID = Pattern.compile("[A-Za-z0-9_+=.@-]{1,128}");
    private static final Pattern ACCOUNT_ID = Pattern.compile("\\d{12}");

    /** A configured principal with the name the operator gave it. */
    record Named(String name, AuthConfig.Principal principal) {
    }

    private final Map<String, Named> byKey = new HashMap<>();

    Principals(AuthConfig config) {
        config.principals().forEach((name, p) -> {
            String prefix = "delivery.auth.principals." + name + ".";
            if (!ACCESS_KEY_ID.matcher(p.accessKeyId()).matches()) {
                throw new IllegalArgumentException(prefix + "access-key-id must be 1 to 128 letters, digits or _+=.@-");
            }
            if (p.secretAccessKey().isBlank()) {
                throw new IllegalArgumentException(prefix + "secret-access-key must not be blank");
            }
            if (!ACCOUNT_ID.matcher(p.accountId()).matches()) {
                throw new IllegalArgumentException(prefix + "account-id must be 12 digits, not '" + p.accountId() + "'");
            }
            if (byKey.putIfAbsent(p.accessKeyId(), new Named(name, p)) != null) {
                throw new IllegalArgumentException(prefix + "access-key-id " + p.accessKeyId()
                        + " is another principal's too: each key belongs to one principal");
            }
        });
    }

    Optional<Named> find(String accessKeyId) {
        return Optional.ofNullable(byKey.get(accessKeyId));
    }

    boolean isEmpty() {
        return byKey.isEmpty();
    }
}
