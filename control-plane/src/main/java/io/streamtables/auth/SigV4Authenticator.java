package io.streamtables.auth;

import io.streamtables.api.AwsApiException;
import io.streamtables.config.AuthConfig;
import io.streamtables.config.DeliveryConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Checks a request's SigV4 signature as AWS does: the key names a configured principal, the credential scope is
 * this service's Region and the API's signing name, the date is within 15 minutes, and the signature is the HMAC
 * chain of the principal's secret over the {@link CanonicalRequest} of what the client signed, as received: the
 * headers it listed and no others, the path and query it sent, the hash of the body that arrived. Nothing the
 * server would add to a request decides acceptance. Refusals carry the error types the SDKs map.
 */
@ApplicationScoped
public class SigV4Authenticator {

    static final Duration MAX_SKEW = Duration.ofMinutes(15);
    private static final String ALGORITHM = "AWS4-HMAC-SHA256";
    private static final DateTimeFormatter AMZ_DATE =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
    private static final HexFormat HEX = HexFormat.of();
    /** A SHA-256 in hex: a payload hash, or a signature. */
    private static final Pattern HEX_SHA256 = Pattern.compile("[0-9a-f]{64}");

    private final boolean open;
    private final String operatorAccount;
    private final String region;
    private final Principals principals;
    private final Clock clock;

    @Inject
    public SigV4Authenticator(AuthConfig auth, DeliveryConfig delivery) {
        this(auth, delivery, Clock.systemUTC());
    }

    SigV4Authenticator(AuthConfig auth, DeliveryConfig delivery, Clock clock) {
        this.open = auth.mode() == AuthConfig.Mode.NONE;
        this.operatorAccount = delivery.accountId();
        this.region = delivery.region();
        this.principals = new Principals(auth);
        this.clock = clock;
    }

    /** Whether no key is configured: such a service refuses to start unless the API is open by choice. */
    boolean hasNoPrincipals() {
        return principals.isEmpty();
    }

    /** Whether {@code accessKeyId} is a configured principal's. */
    boolean knows(String accessKeyId) {
        return principals.find(accessKeyId).isPresent();
    }

    /**
     * @param service the API's signing name ({@code kinesis}, {@code glue})
     * @return the caller; with {@code delivery.auth.mode=none}, anyone, acting for {@code delivery.account-id} and
     *         reading every account
     * @throws AwsApiException the AWS error for a request that is not signed, or not signed right
     */
    public Caller authenticate(ReceivedRequest request, String service) {
        if (open) {
            return new Caller(null, operatorAccount, true);
        }
        Presented presented = present(request, service);
        String expected = signature(request, presented.auth(), presented.amzDate(),
                presented.principal().secretAccessKey());
        if (!MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII),
                presented.auth().signature().getBytes(StandardCharsets.US_ASCII))) {
            throw invalidSignature("The request signature we calculated does not match the signature you provided. "
                    + "Check your AWS Secret Access Key and signing method.");
        }
        return presented.caller();
    }

    /**
     * The checks the headers alone decide (the Authorization's form, its key, session token, scope and date), so
     * that a request no principal could have signed is refused before any byte of its body is read.
     *
     * @throws AwsApiException as {@link #authenticate} would for the same headers
     */
    public void checkHeaders(ReceivedRequest headers, String service) {
        if (!open) {
            present(headers, service);
        }
    }

    /** A signature whose headers checked out: who claims to have signed, and when. */
    private record Presented(Authorization auth, Principals.Named named, String amzDate) {
        AuthConfig.Principal principal() {
            return named.principal();
        }

        Caller caller() {
            return new Caller(principal().accessKeyId(), principal().accountId(),
                    named.name().equals(AuthConfig.SERVICE_PRINCIPAL));
        }
    }

    private Presented present(ReceivedRequest request, String service) {
        String authorization = request.header("authorization");
        if (authorization == null) {
            if (request.rawQuery() != null && request.rawQuery().contains("X-Amz-Signature=")) {
                throw incomplete("query-string (presigned) signatures are not accepted: sign the Authorization header");
            }
            throw new AwsApiException("MissingAuthenticationTokenException", 403,
                    "Missing Authentication Token: every request must be SigV4-signed with a configured key");
        }
        Authorization auth = Authorization.parse(authorization);
        // HTTP/2 clients may sign the :authority pseudo-header instead of Host; the date is X-Amz-Date, else Date
        String dateHeader = request.header("x-amz-date") != null ? "x-amz-date" : "date";
        String date = request.header(dateHeader);
        boolean coversHost = auth.signedHeaders().contains("host") || auth.signedHeaders().contains(":authority");
        if (date == null || !coversHost || !auth.signedHeaders().contains(dateHeader)) {
            throw incomplete("the signature must cover the Host (or :authority) and X-Amz-Date (or Date) headers");
        }
        Principals.Named named = principals.find(auth.accessKeyId()).orElseThrow(() -> unrecognized(
                "The security token included in the request is invalid: access key " + auth.accessKeyId()
                        + " is not one of this service's principals"));
        checkSessionToken(named.principal(), request.header("x-amz-security-token"));
        Instant signedAt = parseDate(date);
        String amzDate = AMZ_DATE.format(signedAt);
        checkScope(auth, amzDate, service);
        checkSkew(signedAt, amzDate);
        return new Presented(auth, named, amzDate);
    }

    private static void checkSessionToken(AuthConfig.Principal principal, String sent) {
        String expected = principal.sessionToken().orElse(null);
        boolean same = expected == null ? sent == null : sent != null && MessageDigest.isEqual(
                expected.getBytes(StandardCharsets.UTF_8), sent.getBytes(StandardCharsets.UTF_8));
        if (!same) {
            throw unrecognized("The security token included in the request is invalid: access key "
                    + principal.accessKeyId() + (expected == null ? " is a long-term key and takes no session token"
                            : " is a temporary key: send its session token (X-Amz-Security-Token)"));
        }
    }

    private void checkScope(Authorization auth, String amzDate, String service) {
        if (!auth.date().equals(amzDate.substring(0, 8))) {
            throw invalidSignature("Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date "
                    + "from HTTP: '" + auth.date() + "' != '" + amzDate.substring(0, 8) + "'");
        }
        if (!auth.region().equals(region)) {
            throw invalidSignature("Credential should be scoped to a valid region, not '" + auth.region()
                    + "': this service is in " + region + " (delivery.region)");
        }
        if (!auth.service().equals(service)) {
            throw invalidSignature("Credential should be scoped to correct service: '" + service + "', not '"
                    + auth.service() + "'");
        }
    }

    private void checkSkew(Instant signedAt, String amzDate) {
        Instant now = clock.instant();
        if (signedAt.isBefore(now.minus(MAX_SKEW))) {
            throw invalidSignature("Signature expired: " + amzDate + " is now earlier than "
                    + AMZ_DATE.format(now.minus(MAX_SKEW)) + " (" + AMZ_DATE.format(now) + " - 15 min.)");
        }
        if (signedAt.isAfter(now.plus(MAX_SKEW))) {
            throw invalidSignature("Signature not yet current: " + amzDate + " is still later than "
                    + AMZ_DATE.format(now.plus(MAX_SKEW)) + " (" + AMZ_DATE.format(now) + " + 15 min.)");
        }
    }

    /** The hex signature of the request's canonical form with {@code secret}, signed at {@code amzDate}. */
    private static String signature(ReceivedRequest request, Authorization auth, String amzDate, String secret) {
        String canonical;
        try {
            canonical = CanonicalRequest.of(request, auth.signedHeaders(), payloadHash(request));
        } catch (CanonicalRequest.Unsignable e) {
            throw invalidSignature(e.getMessage());
        }
        String scope = auth.date() + "/" + auth.region() + "/" + auth.service() + "/aws4_request";
        String stringToSign = ALGORITHM + "\n" + amzDate + "\n" + scope + "\n"
                + HEX.formatHex(sha256(canonical.getBytes(StandardCharsets.UTF_8)));
        byte[] key = ("AWS4" + secret).getBytes(StandardCharsets.UTF_8);
        for (String part : List.of(auth.date(), auth.region(), auth.service(), "aws4_request", stringToSign)) {
            key = hmacSha256(key, part);
        }
        return HEX.formatHex(key);
    }

    /**
     * The SHA-256 of the body as received. A client that sent {@code x-amz-content-sha256} signed that value, so it
     * must be the body's: this API takes no unsigned or streaming payload, the signature always covers the body.
     */
    private static String payloadHash(ReceivedRequest request) {
        String actual = HEX.formatHex(sha256(request.body() == null ? new byte[0] : request.body()));
        String declared = request.header("x-amz-content-sha256");
        if (declared != null && !declared.equals(actual)) {
            throw invalidSignature(HEX_SHA256.matcher(declared).matches()
                    ? "The provided x-amz-content-sha256 header does not match what was computed: the body changed"
                    : "x-amz-content-sha256 must be the hex SHA-256 of the body: this API takes no unsigned or "
                            + "streaming payload");
        }
        return actual;
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
    }

    private static byte[] hmacSha256(byte[] key, String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM has no HmacSHA256", e);
        }
    }

    /** X-Amz-Date's ISO 8601 basic form, or a Date header's RFC 1123 form (which SigV4 signs in the basic form). */
    private static Instant parseDate(String date) {
        for (DateTimeFormatter format : List.of(AMZ_DATE, DateTimeFormatter.RFC_1123_DATE_TIME)) {
            try {
                return Instant.from(format.parse(date.strip()));
            } catch (DateTimeParseException tryNext) {
                // the next form
            }
        }
        throw incomplete("X-Amz-Date must be an ISO 8601 basic date-time such as 20261201T120000Z");
    }

    static AwsApiException incomplete(String message) {
        return AwsApiException.badRequest("IncompleteSignatureException", message);
    }

    private static AwsApiException unrecognized(String message) {
        return AwsApiException.badRequest("UnrecognizedClientException", message);
    }

    private static AwsApiException invalidSignature(String message) {
        return AwsApiException.badRequest("InvalidSignatureException", message);
    }

    /** {@code AWS4-HMAC-SHA256 Credential=KEY/DATE/REGION/SERVICE/aws4_request, SignedHeaders=a;b, Signature=hex}. */
    record Authorization(String accessKeyId, String date, String region, String service, List<String> signedHeaders,
            String signature) {

        private static final Pattern HEADER_NAME = Pattern.compile(":?[a-z0-9!#$%&'*+.^_`|~-]+");

        static Authorization parse(String header) {
            if (!header.startsWith(ALGORITHM + " ")) {
                throw incomplete("Authorization header requires the " + ALGORITHM + " algorithm");
            }
            String credential = null;
            String signedHeaders = null;
            String signature = null;
            for (String part : header.substring(ALGORITHM.length() + 1).split(",")) {
                String p = part.strip();
                if (p.startsWith("Credential=")) {
                    credential = p.substring("Credential=".length());
                } else if (p.startsWith("SignedHeaders=")) {
                    signedHeaders = p.substring("SignedHeaders=".length());
                } else if (p.startsWith("Signature=")) {
                    signature = p.substring("Signature=".length());
                }
            }
            for (String[] required : new String[][] {{"Credential", credential}, {"SignedHeaders", signedHeaders},
                    {"Signature", signature}}) {
                if (required[1] == null || required[1].isEmpty()) {
                    throw incomplete("Authorization header requires '" + required[0] + "' parameter");
                }
            }
            String[] scope = credential.split("/", -1);
            if (scope.length != 5 || !scope[4].equals("aws4_request") || List.of(scope).contains("")) {
                throw incomplete("Credential must be KEY/YYYYMMDD/REGION/SERVICE/aws4_request");
            }
            List<String> names = new ArrayList<>();
            for (String name : signedHeaders.split(";", -1)) {
                String lower = name.toLowerCase(Locale.ROOT);
                if (!HEADER_NAME.matcher(lower).matches()) {
                    throw incomplete("SignedHeaders must be header names separated by ';'");
                }
                names.add(lower);
            }
            if (!HEX_SHA256.matcher(signature).matches()) {
                throw incomplete("Signature must be 64 lower-case hex digits");
            }
            return new Authorization(scope[0], scope[1], scope[2], scope[3], List.copyOf(names), signature);
        }
    }
}
