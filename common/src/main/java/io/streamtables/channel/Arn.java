package io.streamtables.channel;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A parsed ARN: {@code arn:PARTITION:SERVICE:REGION:ACCOUNT:RESOURCE}. */
public record Arn(String partition, String service, String region, String account, String resource) {

    /** The longest ARN AWS's models accept. */
    public static final int MAX_LENGTH = 2048;

    private static final Pattern ARN = Pattern.compile("arn:(aws[a-z-]*):([a-z0-9-]+):([a-z0-9-]*):(\\d{12}|):(.+)");

    /**
     * Parses {@code value} as an ARN of {@code service} whose resource starts with {@code resourcePrefix}.
     *
     * @param field the request field, named in the error
     * @throws IllegalArgumentException naming the field and the expected form
     */
    public static Arn parse(String field, String value, String service, String resourcePrefix, String example) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(field + " is required, for example " + example);
        }
        if (value.length() > MAX_LENGTH) {
            throw new IllegalArgumentException(field + " must be at most " + MAX_LENGTH + " characters (an ARN)");
        }
        Matcher m = ARN.matcher(value);
        if (!m.matches() || !m.group(2).equals(service) || !m.group(5).startsWith(resourcePrefix)
                || m.group(5).length() == resourcePrefix.length()) {
            throw new IllegalArgumentException(
                    field + " '" + value + "' is not a well-formed " + service + " ARN; expected the form " + example);
        }
        return new Arn(m.group(1), m.group(2), m.group(3), m.group(4), m.group(5));
    }

    /** The account field of an ARN this class validated ({@code arn:PARTITION:SERVICE:REGION:ACCOUNT:...}). */
    public static String accountOf(String arn) {
        String[] parts = arn.split(":", 6);
        if (parts.length < 6) {
            throw new IllegalArgumentException("'" + arn + "' is not an ARN");
        }
        return parts[4];
    }

    /** The part of the resource after {@code prefix}, e.g. the stream name of {@code stream/NAME}. */
    public String resourceAfter(String prefix) {
        return resource.substring(prefix.length());
    }

    @Override
    public String toString() {
        return "arn:" + partition + ":" + service + ":" + region + ":" + account + ":" + resource;
    }
}
