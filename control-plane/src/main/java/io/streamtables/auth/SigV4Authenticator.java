package io.streamtables.auth;

import io.streamtables.api.AwsApiException;
import io.streamtables.config.AuthConfig;
import io.streamtables.config.DeliveryConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.AwsSessionCredentialsIdentity;

/**
 * Checks a request's SigV4 signature as AWS does: the key names a configured principal, the credential scope is
 * this service's Region and the API's signing name, the date is within 15 minutes, and the signature is the one
 * the AWS SDK's own signer computes over the request as received (its signed headers, path, query and body
 * hash) with the principal's secret. Refusals carry the error types the SDKs map.
 */
@ApplicationScoped
public class SigV4Authenticator {

    static final Duration MAX_SKEW = Duration.ofMinutes(15);
    private static final String ALGORITHM = "AWS4-HMAC-SHA256";
    private static final DateTimeFormatter AMZ_DATE =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
    private static final AwsV4HttpSigner SIGNER = AwsV4HttpSigner.create();

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
        String authorization = request.header("authorization");
        if (authorization == null) {
            if (request.rawQuery() != null && request.rawQuery().contains("X-Amz-Signature=")) {
                throw incomplete("query-string (presigned) signatures are not accepted: sign the Authorization header");
            }
            throw new AwsApiException("MissingAuthenticationTokenException", 403,
                    "Missing Authentication Token: every request must be SigV4-signed with a configured key");
        }
        Authorization auth = Authorization.parse(authorization);
        String amzDate = request.header("x-amz-date");
        if (amzDate == null || !auth.signedHeaders().contains("x-amz-date") || !auth.signedHeaders().contains("host")) {
            throw incomplete("the signature must cover the Host and X-Amz-Date headers");
        }
        Principals.Named named = principals.find(auth.accessKeyId()).orElseThrow(() -> unrecognized(
                "The security token included in the request is invalid: access key " + auth.accessKeyId()
                        + " is not one of this service's principals"));
        AuthConfig.Principal principal = named.principal();
        checkSessionToken(principal, request.header("x-amz-security-token"));
        Instant signedAt = parseDate(amzDate);
        checkScope(auth, amzDate, service);
        checkSkew(signedAt, amzDate);
        if (!auth.matches(expected(request, auth, principal, signedAt))) {
            throw invalidSignature("The request signature we calculated does not match the signature you provided. "
                    + "Check your AWS Secret Access Key and signing method.");
        }
        return new Caller(principal.accessKeyId(), principal.accountId(),
                named.name().equals(AuthConfig.SERVICE_PRINCIPAL));
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

    /** The Authorization header the SDK's signer writes for this request with the principal's secret. */
    private Authorization expected(ReceivedRequest request, Authorization auth, AuthConfig.Principal principal,
            Instant signedAt) {
        SdkHttpRequest.Builder unsigned = SdkHttpRequest.builder()
                .method(SdkHttpMethod.fromValue(request.method()))
                .uri(signedUri(request)); // the signed Host header below is what counts, not the URI's host
        for (String name : auth.signedHeaders()) {
            List<String> values = request.headers().get(name);
            if (values == null) {
                throw invalidSignature("SignedHeaders names " + name + ", which the request does not carry");
            }
            unsigned.putHeader(name, values);
        }
        String secret = principal.secretAccessKey();
        AwsCredentialsIdentity identity = principal.sessionToken()
                .<AwsCredentialsIdentity>map(t -> AwsSessionCredentialsIdentity.create(principal.accessKeyId(), secret, t))
                .orElseGet(() -> AwsCredentialsIdentity.create(principal.accessKeyId(), secret));
        byte[] body = request.body() == null ? new byte[0] : request.body();
        String header = SIGNER.sign(r -> r.identity(identity).request(unsigned.build())
                        .payload(ContentStreamProvider.fromByteArrayUnsafe(body))
                        .putProperty(AwsV4HttpSigner.REGION_NAME, auth.region())
                        .putProperty(AwsV4FamilyHttpSigner.SERVICE_SIGNING_NAME, auth.service())
                        .putProperty(HttpSigner.SIGNING_CLOCK, Clock.fixed(signedAt, ZoneOffset.UTC)))
                .request().firstMatchingHeader("Authorization")
                .orElseThrow(() -> new IllegalStateException("the SDK's signer wrote no Authorization header"));
        return Authorization.parse(header);
    }

    /** The request's path and query on a placeholder host: the SDK parses the query as its clients write it. */
    private static URI signedUri(ReceivedRequest request) {
        String query = request.rawQuery() == null || request.rawQuery().isEmpty() ? "" : "?" + request.rawQuery();
        try {
            return new URI("https://signed-host.invalid" + request.rawPath() + query);
        } catch (URISyntaxException e) {
            throw invalidSignature("the request path or query is not a valid URI: " + e.getReason());
        }
    }

    private static Instant parseDate(String amzDate) {
        try {
            return Instant.from(AMZ_DATE.parse(amzDate));
        } catch (DateTimeParseException e) {
            throw incomplete("X-Amz-Date must be an ISO 8601 basic date-time such as 20261201T120000Z");
        }
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

        static Authorization parse(String header) {
            if (!header.startsWith(ALGORITHM + " ")) {
                throw incomplete("Authorization header requires the " + ALGORITHM + " algorithm");
            }
            Map<String, String> parts = new HashMap<>();
            for (String part : header.substring(ALGORITHM.length() + 1).split(",")) {
                int eq = part.indexOf('=');
                if (eq > 0) {
                    parts.put(part.substring(0, eq).trim(), part.substring(eq + 1).trim());
                }
            }
            for (String required : List.of("Credential", "SignedHeaders", "Signature")) {
                if (!parts.containsKey(required) || parts.get(required).isEmpty()) {
                    throw incomplete("Authorization header requires '" + required + "' parameter");
                }
            }
            String[] scope = parts.get("Credential").split("/", -1);
            if (scope.length != 5 || !scope[4].equals("aws4_request") || Arrays.stream(scope).anyMatch(String::isEmpty)) {
                throw incomplete("Credential must be KEY/YYYYMMDD/REGION/SERVICE/aws4_request");
            }
            return new Authorization(scope[0], scope[1], scope[2], scope[3],
                    List.of(parts.get("SignedHeaders").split(";")), parts.get("Signature"));
        }

        /** Same signature over the same headers; the signatures compared in constant time. */
        boolean matches(Authorization expected) {
            return signedHeaders.equals(expected.signedHeaders) && MessageDigest.isEqual(
                    signature.getBytes(StandardCharsets.US_ASCII), expected.signature.getBytes(StandardCharsets.US_ASCII));
        }
    }
}
