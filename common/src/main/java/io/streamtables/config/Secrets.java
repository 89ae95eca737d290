package io.streamtables.config;

import java.util.regex.Pattern;

/**
 * Passwords never reach a log line, a health check or a delivery log: a URL may carry one (a JDBC URL's
 * {@code password=} parameter, or {@code user:password@}), and drivers repeat the URL in their errors.
 */
public final class Secrets {

    private static final Pattern PARAMETER = Pattern.compile(
            "(?i)\\b(password|passwd|pwd|secret|secret-access-key|sslpassword)=[^&;,\\s]*");
    private static final Pattern USER_INFO = Pattern.compile("(://[^/:@\\s]+):[^@/\\s]*@");

    private Secrets() {
    }

    /** The text with every password it holds written {@code ***}; null stays null. */
    public static String redact(String text) {
        if (text == null) {
            return null;
        }
        String masked = PARAMETER.matcher(text).replaceAll("$1=***");
        return USER_INFO.matcher(masked).replaceAll("$1:***@");
    }
}
