package io.streamtables.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.streamtables.config.AuthConfig;
import io.streamtables.config.DeliveryConfig;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.AwsSessionCredentialsIdentity;

/**
 * The checks one by one, on requests signed by the AWS SDK's own signer (the one its clients use); the clients
 * themselves meet the service in {@code ApiAuthenticationTest}.
 */
class SigV4AuthenticatorTest {

    static final Instant NOW = Instant.parse("2026-12-02T10:00:00Z");
    static final AwsCredentialsIdentity ALICE = AwsCredentialsIdentity.create("ALICEKEY", "alice-secret");
    static final AwsSessionCredentialsIdentity TEMPORARY =
            AwsSessionCredentialsIdentity.create("ASIATEMP", "temp-secret", "session-1");
    static final byte[] BODY = "{\"ChannelName\":\"c\"}".getBytes(StandardCharsets.UTF_8);

    static SmallRyeConfig config(Map<String, String> settings) {
        Map<String, String> all = new HashMap<>(Map.of("delivery.database-url", "jdbc:sqlite:unused.db"));
        all.putAll(settings);
        return new SmallRyeConfigBuilder().withMapping(AuthConfig.class).withMapping(DeliveryConfig.class)
                .withSources(new PropertiesConfigSource(all, "test", 400)).build();
    }

    static final Map<String, String> PRINCIPALS = Map.of(
            "delivery.auth.principals.alice.access-key-id", "ALICEKEY",
            "delivery.auth.principals.alice.secret-access-key", "alice-secret",
            "delivery.auth.principals.alice.account-id", "111111111111",
            "delivery.auth.principals.temp.access-key-id", "ASIATEMP",
            "delivery.auth.principals.temp.secret-access-key", "temp-secret",
            "delivery.auth.principals.temp.account-id", "222222222222",
            "delivery.auth.principals.temp.session-token", "session-1",
            "delivery.auth.principals.service.access-key-id", "STAGES",
            "delivery.auth.principals.service.secret-access-key", "stages-secret",
            "delivery.auth.principals.service.account-id", "333333333333");

    static SigV4Authenticator authenticator(Map<String, String> settings) {
        return authenticator(settings, NOW);
    }

    static SigV4Authenticator authenticator(Map<String, String> settings, Instant now) {
        SmallRyeConfig config = config(settings);
        return new SigV4Authenticator(config.getConfigMapping(AuthConfig.class),
                config.getConfigMapping(DeliveryConfig.class), Clock.fixed(now, ZoneOffset.UTC));
    }

    static final SigV4Authenticator AUTH = authenticator(PRINCIPALS);

    /** A POST / as the SDK's Kinesis client sends it, signed at {@code at}. */
    static ReceivedRequest signed(AwsCredentialsIdentity identity, String service, Instant at, byte[] body) {
        SdkHttpRequest request = SdkHttpRequest.builder().method(SdkHttpMethod.POST).protocol("http")
                .host("127.0.0.1").port(8080).encodedPath("/")
                .putHeader("Content-Type", "application/x-amz-json-1.1")
                .putHeader("X-Amz-Target", "Kinesis_20131202.ListChannels").build();
        return received(TestSigning.sign(request, body, service, identity, Clock.fixed(at, ZoneOffset.UTC)).headers(),
                body);
    }

    static ReceivedRequest received(Map<String, List<String>> headers, byte[] body) {
        Map<String, List<String>> lower = new LinkedHashMap<>();
        headers.forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), new ArrayList<>(v)));
        return new ReceivedRequest("POST", "/", null, lower, body);
    }

    static AuthenticationException refused(ReceivedRequest request, String type) {
        AuthenticationException e = assertThrows(AuthenticationException.class, () -> AUTH.authenticate(request, "kinesis"));
        assertEquals(type, e.type(), e.getMessage());
        return e;
    }

    @Test
    void aRequestSignedWithAPrincipalsKeyActsForItsAccount() {
        Caller caller = AUTH.authenticate(signed(ALICE, "kinesis", NOW, BODY), "kinesis");
        assertEquals(new Caller("ALICEKEY", "111111111111", false), caller);
        assertTrue(caller.owns("111111111111") && !caller.owns("222222222222") && !caller.mayRead("222222222222"));
        Caller temporary = AUTH.authenticate(signed(TEMPORARY, "kinesis", NOW.minusSeconds(60), BODY), "kinesis");
        assertEquals("222222222222", temporary.accountId());
        Caller stages = AUTH.authenticate(signed(AwsCredentialsIdentity.create("STAGES", "stages-secret"), "glue",
                NOW, BODY), "glue");
        assertTrue(stages.mayRead("111111111111") && !stages.owns("111111111111"),
                "the principal named service reads every account's schemas and changes only its own");
    }

    @Test
    void aWrongSecretOrAChangedBodyIsAnInvalidSignature() {
        refused(signed(AwsCredentialsIdentity.create("ALICEKEY", "guessed"), "kinesis", NOW, BODY),
                "InvalidSignatureException");
        ReceivedRequest request = signed(ALICE, "kinesis", NOW, BODY);
        byte[] changed = BODY.clone();
        changed[3] ^= 1;
        refused(new ReceivedRequest("POST", "/", null, request.headers(), changed), "InvalidSignatureException");
        // a header the signature covers, changed
        request.headers().put("x-amz-target", List.of("Kinesis_20131202.DeleteChannel"));
        refused(request, "InvalidSignatureException");
    }

    /**
     * A key no principal has passes the headers' checks and is refused as a wrong secret is, word for word, once the
     * body arrived: a caller without a secret cannot tell the service's key ids from others (before, an unknown key
     * was an UnrecognizedClientException from the headers alone, and a known one was let on to its body).
     */
    @Test
    void anUnknownKeyIsRefusedAsAWrongSecretIs() {
        ReceivedRequest unknown = signed(AwsCredentialsIdentity.create("MALLORY", "x"), "kinesis", NOW, BODY);
        assertEquals(SigV4Authenticator.Claim.UNKNOWN_KEY, AUTH.checkHeaders(unknown, "kinesis"));
        AuthenticationException e = refused(unknown, "InvalidSignatureException");
        AuthenticationException wrongSecret = refused(signed(AwsCredentialsIdentity.create("ALICEKEY", "guessed"), "kinesis",
                NOW, BODY), "InvalidSignatureException");
        assertEquals(wrongSecret.getMessage(), e.getMessage());
        assertEquals(new SigV4Authenticator.Claim("ALICEKEY", false),
                AUTH.checkHeaders(signed(ALICE, "kinesis", NOW, BODY), "kinesis"));
        assertEquals(new SigV4Authenticator.Claim("STAGES", true), AUTH.checkHeaders(signed(
                AwsCredentialsIdentity.create("STAGES", "guessed"), "kinesis", NOW, BODY), "kinesis"),
                "the stages' principal's bodies are charged to its reserve, whoever claims its key");
    }

    /**
     * The operation is part of what is signed: a request that left X-Amz-Target unsigned could be replayed within
     * 15 minutes as another operation with the same body. Every SDK, the CLI and curl sign it (ClientMatrixIT).
     */
    @Test
    void theTargetMustBeSigned() {
        ReceivedRequest request = signed(ALICE, "kinesis", NOW, BODY);
        String header = request.header("authorization");
        assertTrue(header.contains(";x-amz-target"), header);
        request.headers().put("authorization", List.of(header.replace(";x-amz-target", "")));
        request.headers().put("x-amz-target", List.of("Kinesis_20131202.DeleteChannel"));
        AuthenticationException e = assertThrows(AuthenticationException.class, () -> AUTH.checkHeaders(request, "kinesis"));
        assertEquals("IncompleteSignatureException", e.type());
        assertTrue(e.getMessage().contains("X-Amz-Target"), e.getMessage());
    }

    /** With the service's names configured, a signature made for another host is not one for this service. */
    @Test
    void aRequestSignedForAnotherHostIsRefusedWhereTheNamesAreSet() {
        Map<String, String> named = new HashMap<>(PRINCIPALS);
        named.put("delivery.auth.host-names", "streams.example.com,127.0.0.1");
        assertEquals("111111111111", authenticator(named).authenticate(signed(ALICE, "kinesis", NOW, BODY), "kinesis")
                .accountId());
        named.put("delivery.auth.host-names", "Streams.Example.com");
        AuthenticationException e = assertThrows(AuthenticationException.class, () -> authenticator(named)
                .checkHeaders(signed(ALICE, "kinesis", NOW, BODY), "kinesis"));
        assertEquals("InvalidSignatureException", e.type());
        assertTrue(e.getMessage().contains("'127.0.0.1'") && e.getMessage().contains("delivery.auth.host-names"),
                e.getMessage());
    }

    @Test
    void aSignatureOlderOrNewerThanFifteenMinutesHasExpired() {
        AUTH.authenticate(signed(ALICE, "kinesis", NOW.minus(Duration.ofMinutes(14)), BODY), "kinesis");
        AuthenticationException old = refused(signed(ALICE, "kinesis", NOW.minus(Duration.ofMinutes(20)), BODY),
                "InvalidSignatureException");
        assertTrue(old.getMessage().startsWith("Signature expired: 20261202T094000Z is now earlier than "
                + "20261202T094500Z"), old.getMessage());
        refused(signed(ALICE, "kinesis", NOW.plus(Duration.ofMinutes(16)), BODY), "InvalidSignatureException");
    }

    @Test
    void theScopeMustNameThisApiAndRegion() {
        AuthenticationException e = refused(signed(ALICE, "glue", NOW, BODY), "InvalidSignatureException");
        assertTrue(e.getMessage().contains("'kinesis'"), e.getMessage());
    }

    @Test
    void aTemporaryKeyNeedsItsSessionTokenAndALongTermKeyTakesNone() {
        ReceivedRequest withoutToken = signed(AwsCredentialsIdentity.create("ASIATEMP", "temp-secret"), "kinesis",
                NOW, BODY);
        refused(withoutToken, "UnrecognizedClientException");
        refused(signed(AwsSessionCredentialsIdentity.create("ASIATEMP", "temp-secret", "session-0"), "kinesis", NOW,
                BODY), "UnrecognizedClientException");
        refused(signed(AwsSessionCredentialsIdentity.create("ALICEKEY", "alice-secret", "any"), "kinesis", NOW, BODY),
                "UnrecognizedClientException");
    }

    @Test
    void anUnsignedOrHalfSignedRequestIsRefused() {
        ReceivedRequest unsigned = received(Map.of("host", List.of("127.0.0.1:8080")), BODY);
        AuthenticationException missing = refused(unsigned, "MissingAuthenticationTokenException");
        assertEquals(403, missing.status());

        ReceivedRequest request = signed(ALICE, "kinesis", NOW, BODY);
        String header = request.header("authorization");
        request.headers().put("authorization", List.of(header.replaceAll(", Signature=.*", "")));
        refused(request, "IncompleteSignatureException");
        request.headers().put("authorization", List.of(header.replace("SignedHeaders=", "SignedHeaders=x;")
                .replace(";host;", ";")));
        refused(request, "IncompleteSignatureException");
        request.headers().put("authorization", List.of(header.replace("AWS4-HMAC-SHA256", "AWS4-HMAC-SHA1")));
        refused(request, "IncompleteSignatureException");
        request.headers().put("authorization", List.of(header));
        request.headers().put("x-amz-date", List.of("yesterday"));
        refused(request, "IncompleteSignatureException");
    }

    /** The query string is part of what is signed: the SDK's own parser reads it as its clients wrote it. */
    @Test
    void aSignedQueryStringCountsAndAnUnparsableOneIsRefused() {
        SdkHttpRequest request = SdkHttpRequest.builder().method(SdkHttpMethod.POST).protocol("http")
                .host("127.0.0.1").port(8080).encodedPath("/a%20b").putRawQueryParameter("x", List.of("1 2", "3"))
                .putRawQueryParameter("y", "").build();
        SdkHttpRequest signed = TestSigning.sign(request, BODY, "kinesis", ALICE, Clock.fixed(NOW, ZoneOffset.UTC));
        Map<String, List<String>> headers = new LinkedHashMap<>();
        signed.headers().forEach((k, v) -> headers.put(k.toLowerCase(Locale.ROOT), new ArrayList<>(v)));
        String query = signed.encodedQueryParameters().orElseThrow();
        assertEquals("111111111111", AUTH.authenticate(new ReceivedRequest("POST", "/a%20b", query, headers, BODY),
                "kinesis").accountId());
        refused(new ReceivedRequest("POST", "/a%20b", query.replace("3", "4"), headers, BODY),
                "InvalidSignatureException");
        refused(new ReceivedRequest("POST", "/a%20b", "x=%zz", headers, BODY), "InvalidSignatureException");
    }

    /** A request as another signer wrote it (recorded): headers by lower-case name, in the order sent. */
    static ReceivedRequest recorded(String method, String query, byte[] body, String... headers) {
        Map<String, List<String>> map = new LinkedHashMap<>();
        for (int i = 0; i < headers.length; i += 2) {
            map.computeIfAbsent(headers[i], k -> new ArrayList<>()).add(headers[i + 1]);
        }
        return new ReceivedRequest(method, "/", query, map, body);
    }

    /**
     * botocore's SigV4Auth (boto3, the AWS CLI): no x-amz-content-sha256 (the body's hash is computed here), every
     * header signed, a value with untrimmed and repeated spaces. The SDK-signer check of before refused it.
     */
    static ReceivedRequest botocore(byte[] body) {
        return recorded("POST", null, body, "host", "127.0.0.1:8080", "content-type", "application/x-amz-json-1.1",
                "x-amz-target", "Kinesis_20131202.ListChannels", "my-header", "  a   b  ", "x-amz-date",
                "20261202T100000Z", "authorization", "AWS4-HMAC-SHA256 Credential=ALICEKEY/20261202/us-east-1/kinesis/"
                        + "aws4_request, SignedHeaders=content-type;host;my-header;x-amz-date;x-amz-target, Signature="
                        + "63e519299e86b910255a418f4d96e14cd47537910d636c0aecad8631aeebce19");
    }

    @Test
    void whatBotocoreSignsGetsInAndAChangedBodyDoesNot() {
        assertEquals("111111111111", AUTH.authenticate(botocore(BODY), "kinesis").accountId());
        byte[] changed = BODY.clone();
        changed[3] ^= 1;
        refused(botocore(changed), "InvalidSignatureException");
        ReceivedRequest request = botocore(BODY);
        request.headers().put("my-header", List.of("a b c"));
        refused(request, "InvalidSignatureException");
    }

    /** botocore signs a Date header (RFC 1123) instead of X-Amz-Date when the request has one. */
    @Test
    void aSignedDateHeaderStandsForXAmzDate() {
        ReceivedRequest request = recorded("POST", null, BODY, "host", "127.0.0.1:8080", "content-type",
                "application/x-amz-json-1.1", "x-amz-target", "Kinesis_20131202.ListChannels", "date",
                "Wed, 02 Dec 2026 10:00:00 -0000", "authorization", "AWS4-HMAC-SHA256 Credential=ALICEKEY/20261202/"
                        + "us-east-1/kinesis/aws4_request, SignedHeaders=content-type;date;host;x-amz-target, "
                        + "Signature=8f9d5fcbf046129960aedf72465592986dc88352b0186d7467707876acfea934");
        assertEquals("111111111111", AUTH.authenticate(request, "kinesis").accountId());
        request.headers().put("date", List.of("Wed, 02 Dec 2026 10:00:01 -0000"));
        refused(request, "InvalidSignatureException");
        request.headers().put("date", List.of("a while ago"));
        refused(request, "IncompleteSignatureException");
    }

    /** The JavaScript SDK's signer (@smithy/signature-v4) on HTTP/2 signs the :authority pseudo-header, no Host. */
    @Test
    void anHttp2RequestMaySignTheAuthorityInsteadOfTheHost() {
        ReceivedRequest request = recorded("POST", null, BODY, ":authority", "127.0.0.1:8080", "content-type",
                "application/x-amz-json-1.1", "x-amz-target", "Kinesis_20131202.ListChannels", "x-amz-date",
                "20261202T100000Z", "x-amz-content-sha256",
                "7c3209e662e6d33dea2654a071c408f0afb98129b21a95301fe9a90324ef35a4", "authorization",
                "AWS4-HMAC-SHA256 Credential=ALICEKEY/20261202/us-east-1/kinesis/aws4_request, SignedHeaders=:authority;"
                        + "content-type;x-amz-content-sha256;x-amz-date;x-amz-target, Signature="
                        + "427f0341e935453bf6b263f1fcb47a836e2240d8e7296313d67b59928fd8e17a");
        assertEquals("111111111111", AUTH.authenticate(request, "kinesis").accountId());
        request.headers().put(":authority", List.of("127.0.0.1:8081"));
        refused(request, "InvalidSignatureException");
    }

    /** The example of AWS's SigV4 documentation (IAM ListUsers, a GET with a query), signature as published. */
    @Test
    void theSignatureOfAwsDocumentationsExample() {
        SigV4Authenticator docs = authenticator(Map.of("delivery.auth.principals.example.access-key-id", "AKIDEXAMPLE",
                "delivery.auth.principals.example.secret-access-key", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
                "delivery.auth.principals.example.account-id", "111111111111"), Instant.parse("2015-08-30T12:36:00Z"));
        ReceivedRequest request = new ReceivedRequest("GET", "/", "Action=ListUsers&Version=2010-05-08",
                recorded("GET", null, null, "host", "iam.amazonaws.com", "content-type",
                        "application/x-www-form-urlencoded; charset=utf-8", "x-amz-date", "20150830T123600Z",
                        "authorization", "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/iam/aws4_request, "
                                + "SignedHeaders=content-type;host;x-amz-date, Signature="
                                + "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7").headers(), null);
        assertEquals("111111111111", docs.authenticate(request, "iam").accountId());
        AuthenticationException e = assertThrows(AuthenticationException.class, () -> docs.authenticate(new ReceivedRequest("GET", "/",
                "Action=ListUsers&Version=2010-05-09", request.headers(), null), "iam"));
        assertEquals("InvalidSignatureException", e.type());
    }

    /** A client that sends x-amz-content-sha256 signs that value: it must be the body's, never UNSIGNED-PAYLOAD. */
    @Test
    void aDeclaredPayloadHashMustBeTheBodys() {
        ReceivedRequest request = signed(ALICE, "kinesis", NOW, BODY);
        AUTH.authenticate(request, "kinesis");
        request.headers().put("x-amz-content-sha256", List.of("UNSIGNED-PAYLOAD"));
        assertTrue(refused(request, "InvalidSignatureException").getMessage().contains("unsigned"));
        request.headers().put("x-amz-content-sha256", List.of("0".repeat(64)));
        assertTrue(refused(request, "InvalidSignatureException").getMessage().contains("does not match"));
    }

    /**
     * The content type the SDK's signer special-cases (event streams) made the check of before throw, a 500: here it
     * is one more header, and a wrong signature over it an InvalidSignatureException.
     */
    @Test
    void anEventStreamContentTypeIsJustASignedHeader() {
        ReceivedRequest request = botocore(BODY);
        request.headers().put("content-type", List.of("application/vnd.amazon.eventstream"));
        refused(request, "InvalidSignatureException");
    }

    /** Any Authorization header, however malformed, is a 4xx in the AWS error shape: never another exception. */
    @Test
    void aMalformedAuthorizationIsAlwaysAClientError() {
        String valid = botocore(BODY).header("authorization");
        List<String> malformed = new ArrayList<>(List.of("", " ", "AWS4-HMAC-SHA256", "AWS4-HMAC-SHA256 ",
                "AWS4-HMAC-SHA256 Credential=", "AWS4-HMAC-SHA256 ,,,,", "AWS4-HMAC-SHA256 Credential=a/b/c/d/e, "
                        + "SignedHeaders=host;x-amz-date, Signature=00",
                valid.replace("SignedHeaders=", "SignedHeaders=;"), valid.replace("host;", "Host;;"),
                valid.replace("Signature=", "Signature=Z"), valid.replace("aws4_request", "aws4_request/x"),
                valid.replace("/20261202/", "//"), valid.replace("SignedHeaders=", "SignedHeaders=a b;"),
                valid + ", Signature=" + "0".repeat(64), valid.replace("kinesis", "k\u0000nesis")));
        java.util.Random random = new java.util.Random(7);
        for (int i = 0; i < 3000; i++) { // the valid header with one character replaced, inserted or deleted
            StringBuilder b = new StringBuilder(valid);
            int at = random.nextInt(b.length());
            char c = (char) (32 + random.nextInt(95));
            switch (random.nextInt(3)) {
                case 0 -> b.setCharAt(at, c);
                case 1 -> b.insert(at, c);
                default -> b.deleteCharAt(at);
            }
            malformed.add(b.toString());
        }
        for (String header : malformed) {
            ReceivedRequest request = botocore(BODY);
            request.headers().put("authorization", List.of(header));
            try {
                AUTH.authenticate(request, "kinesis");
                assertTrue(header.contains(valid.substring(valid.indexOf("Signature="))), "accepted: " + header);
            } catch (AuthenticationException e) {
                assertTrue(e.status() == 400 || e.status() == 403, header + ": " + e.status());
            }
        }
    }

    /** Presigned (query-string) signatures stay refused: the SDKs never send them to these APIs. */
    @Test
    void aPresignedUrlIsRefused() {
        ReceivedRequest presigned = new ReceivedRequest("POST", "/", "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential="
                + "ALICEKEY%2F20261202%2Fus-east-1%2Fkinesis%2Faws4_request&X-Amz-Date=20261202T100000Z"
                + "&X-Amz-SignedHeaders=host&X-Amz-Signature=" + "0".repeat(64),
                new LinkedHashMap<>(Map.of("host", List.of("127.0.0.1:8080"))), BODY);
        assertTrue(refused(presigned, "IncompleteSignatureException").getMessage().contains("presigned"));
    }

    @Test
    void openByChoiceActsForTheOperatorsAccount() {
        SigV4Authenticator open = authenticator(Map.of("delivery.auth.mode", "none", "delivery.account-id",
                "333333333333"));
        assertEquals("333333333333", open.authenticate(received(Map.of(), BODY), "kinesis").accountId());
    }

    @Test
    void aMisconfiguredPrincipalIsNamed() {
        Map<String, String> bad = new HashMap<>(PRINCIPALS);
        bad.put("delivery.auth.principals.alice.account-id", "1111");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> authenticator(bad));
        assertTrue(e.getMessage().startsWith("delivery.auth.principals.alice.account-id must be 12 digits"),
                e.getMessage());
        bad.put("delivery.auth.principals.alice.account-id", "111111111111");
        bad.put("delivery.auth.principals.temp.access-key-id", "ALICEKEY");
        assertThrows(IllegalArgumentException.class, () -> authenticator(bad));
    }
}
