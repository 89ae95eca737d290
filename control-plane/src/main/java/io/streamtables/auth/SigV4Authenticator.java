package io.streamtables.auth;

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
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
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
    /** What a request signed with a key of no principal is checked with: no signature matches it but by chance. */
    private static final String UNKNOWN_KEY_SECRET = java.util.UUID.randomUUID().toString();

    private final boolean open;
    private final String operatorAccount;
    private final String region;
    private final Principals principals;
    private final Set<String> hostNames;
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
        this.hostNames = auth.hostNames().map(names -> names.stream().map(n -> n.toLowerCase(Locale.ROOT))
                .collect(Collectors.toUnmodifiableSet())).orElse(Set.of());
        this.clock = clock;
    }

    /** Whether no key is configured: such a service refuses to start unless the API is open by choice. */
    public boolean hasNoPrincipals() {
        return principals.isEmpty();
    }

    /** Whether {@code accessKeyId} is a configured principal's. */
    public boolean knows(String accessKeyId) {
        return principals.find(accessKeyId).isPresent();
    }

    /**
     * @param service the API's signing name ({@code kinesis}, {@code glue})
     * @return the caller; with {@code delivery.auth.mode=none}, anyone, acting for {@code delivery.account-id} and
     *         reading every account
     * @throws AuthenticationException the AWS error for a request that is not signed, or not signed right
     */
    public Caller authenticate(ReceivedRequest request, String service) {
        if (open) {
            return new Caller(null, operatorAccount, true);
        }
        Presented presented = present(request, service);
        // a key no principal has is checked against a secret nobody has: it fails as a wrong secret does, in as
        // long, so that a caller cannot tell the service's key ids from others without a secret
        String secret = presented.named() == null ? UNKNOWN_KEY_SECRET : presented.principal().secretAccessKey();
        String expected = signature(request, presented.auth(), presented.amzDate(), secret);
        if (presented.named() == null || !MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII),
                presented.auth().signature().getBytes(StandardCharsets.US_ASCII))) {
            throw invalidSignature("The request signature we calculated does not match the signature you provided. "
                    + "Check your AWS Secret Access Key and signing method.");
        }
        checkSessionToken(presented.principal(), request.header("x-amz-security-token"));
        return presented.caller();
    }

    /**
     * The checks the headers alone decide (the Authorization's form, its scope and date, what it must sign), so
     * that a request no principal could have signed is refused before any byte of its body is read. Whether the key
     * is a principal's is not one of them: an unknown key is refused as a wrong signature is, once the body arrived.
     *
     * @return who the request claims to come from, the holder its body is charged to
     * @throws AuthenticationException as {@link #authenticate} would for the same headers
     */
    public Claim checkHeaders(ReceivedRequest headers, String service) {
        if (open) {
            return Claim.ANYONE;
        }
        Presented presented = present(headers, service);
        return presented.named() == null ? Claim.UNKNOWN_KEY : new Claim(presented.auth().accessKeyId(),
                presented.named().name().equals(AuthConfig.SERVICE_PRINCIPAL));
    }

    /**
     * Who a request's headers say signed it, before the signature is checked: the holder its body is charged to.
     *
     * @param holder a principal's access key id; {@link #UNKNOWN_KEY}'s for every key no principal has (so that
     *     made-up keys share one holder); null when the API is open
     * @param service whether the key is the stages' own principal's
     */
    public record Claim(String holder, boolean service) {
        static final Claim ANYONE = new Claim(null, false);
        static final Claim UNKNOWN_KEY = new Claim("(a key of no principal)", false);
    }

    /** A signature whose headers checked out: who claims to have signed, and when; {@code named} null if nobody. */
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
            throw new AuthenticationException("MissingAuthenticationTokenException", 403,
                    "Missing Authentication Token: every request must be SigV4-signed with a configured key");
        }
        Authorization auth = Authorization.parse(authorization);
        // HTTP/2 clients may sign the :authority pseudo-header instead of Host; the date is X-Amz-Date, else Date
        String dateHeader = request.header("x-amz-date") != null ? "x-amz-date" : "date";
        String date = request.header(dateHeader);
        String hostHeader = auth.signedHeaders().contains(":authority") ? ":authority" : "host";
        if (date == null || !auth.signedHeaders().contains(hostHeader) || !auth.signedHeaders().contains(dateHeader)) {
            throw incomplete("the signature must cover the Host (or :authority) and X-Amz-Date (or Date) headers");
        }
        if (request.header("x-amz-target") != null && !auth.signedHeaders().contains("x-amz-target")) {
            // the operation: unsigned, a captured request could be replayed as another one with the same body
            throw incomplete("the signature must cover the X-Amz-Target header");
        }
        checkHost(request.header(hostHeader));
        Instant signedAt = parseDate(date);
        String amzDate = AMZ_DATE.format(signedAt);
        checkScope(auth, amzDate, service);
        checkSkew(signedAt, amzDate);
        return new Presented(auth, principals.find(auth.accessKeyId()).orElse(null), amzDate);
    }

    /** With {@code delivery.auth.host-names}, a signature made for another host is not one for this service. */
    private void checkHost(String signedHost) {
        if (hostNames.isEmpty()) {
            return;
        }
        String host = signedHost == null ? "" : signedHost.strip().toLowerCase(Locale.ROOT);
        int port = host.lastIndexOf(':');
        if (port > host.lastIndexOf(']')) { // host:port, [v6]:port
            host = host.substring(0, port);
        }
        if (!hostNames.contains(host)) {
            throw invalidSignature("The request was signed for host '" + host + "', which is not one of this "
                    + "service's names (delivery.auth.host-names)");
        }
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

    static AuthenticationException incomplete(String message) {
        return AuthenticationException.badRequest("IncompleteSignatureException", message);
    }

    private static AuthenticationException unrecognized(String message) {
        return AuthenticationException.badRequest("UnrecognizedClientException", message);
    }

    private static AuthenticationException invalidSignature(String message) {
        return AuthenticationException.badRequest("InvalidSignatureException", message);
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
