package io.streamtables.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.streamtables.api.AwsApiException;
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
        SmallRyeConfig config = config(settings);
        return new SigV4Authenticator(config.getConfigMapping(AuthConfig.class),
                config.getConfigMapping(DeliveryConfig.class), Clock.fixed(NOW, ZoneOffset.UTC));
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

    static AwsApiException refused(ReceivedRequest request, String type) {
        AwsApiException e = assertThrows(AwsApiException.class, () -> AUTH.authenticate(request, "kinesis"));
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

    @Test
    void anUnknownKeyIsAnUnrecognizedClient() {
        AwsApiException e = refused(signed(AwsCredentialsIdentity.create("MALLORY", "x"), "kinesis", NOW, BODY),
                "UnrecognizedClientException");
        assertTrue(e.getMessage().contains("MALLORY"), e.getMessage());
    }

    @Test
    void aSignatureOlderOrNewerThanFifteenMinutesHasExpired() {
        AUTH.authenticate(signed(ALICE, "kinesis", NOW.minus(Duration.ofMinutes(14)), BODY), "kinesis");
        AwsApiException old = refused(signed(ALICE, "kinesis", NOW.minus(Duration.ofMinutes(20)), BODY),
                "InvalidSignatureException");
        assertTrue(old.getMessage().startsWith("Signature expired: 20261202T094000Z is now earlier than "
                + "20261202T094500Z"), old.getMessage());
        refused(signed(ALICE, "kinesis", NOW.plus(Duration.ofMinutes(16)), BODY), "InvalidSignatureException");
    }

    @Test
    void theScopeMustNameThisApiAndRegion() {
        AwsApiException e = refused(signed(ALICE, "glue", NOW, BODY), "InvalidSignatureException");
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
        AwsApiException missing = refused(unsigned, "MissingAuthenticationTokenException");
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
