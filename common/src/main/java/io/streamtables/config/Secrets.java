package io.streamtables.config;

import java.util.regex.Pattern;

/**
 * Passwords and credentials never reach a log line, a health check or a delivery log: a URL may carry one (a JDBC
 * URL's {@code password=} parameter, or {@code user:password@}; a presigned URL's {@code X-Amz-Security-Token=},
 * {@code X-Amz-Credential=} and {@code X-Amz-Signature=}), an error may repeat a request's {@code Authorization} or
 * {@code X-Amz-Security-Token} header, and drivers repeat the URL in their errors.
 */
public final class Secrets {

    private static final Pattern PARAMETER = Pattern.compile("(?i)\\b(password|passwd|pwd|secret|secret-access-key"
            + "|sslpassword|token|credential|signature)=[^&;,\\s]*");
    private static final Pattern HEADER = Pattern.compile("(?i)\\b(authorization|x-amz-security-token)(\\s*:\\s*)[^\\r\\n]+");
    private static final Pattern USER_INFO = Pattern.compile("(://[^/:@\\s]+):[^@/\\s]*@");

    private Secrets() {
    }

    /** The text with every password, token, credential and signature it holds written {@code ***}; null stays null. */
    public static String redact(String text) {
        if (text == null) {
            return null;
        }
        String masked = PARAMETER.matcher(text).replaceAll("$1=***");
        masked = HEADER.matcher(masked).replaceAll("$1$2***");
        return USER_INFO.matcher(masked).replaceAll("$1:***@");
    }
}
