package io.streamtables.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * {@link RequestGate} on raw sockets, as a hostile caller talks: a request no principal could have signed is answered
 * from its headers while its body has not been sent, whatever the spelling of its path; a body that stalls is cut by
 * the least rate and one that keeps trickling at the deadline; bodies are charged as they arrive, per key, with the
 * stages' reserve kept; every refusal closes the connection, and signed requests go on.
 */
@QuarkusTest
@TestProfile(RequestGateTest.SmallLimits.class)
class RequestGateTest {

    public static class SmallLimits implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("delivery.api.request-deadline", "4s", "delivery.api.body-budget", "1000K",
                    "delivery.api.body-budget-per-key", "600K", "delivery.api.body-budget-service-reserve", "200K",
                    "delivery.api.min-body-rate", "64K", "delivery.api.min-body-rate-grace", "500ms");
        }
    }

    private static final DateTimeFormatter AMZ_DATE =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
    private static final String JSON = "application/x-amz-json-1.1";
    private static final String LIST = "Kinesis_20131202.ListChannels";

    @TestHTTPResource("/")
    URL url;

    @Inject
    RequestGate gate;

    /**
     * Vert.x serves each of these paths as {@code /}: before, the gate looked at the raw path, so all but the first let
     * an unsigned request's declared 2 MB body be read whole (no answer in 10 s here).
     */
    @ParameterizedTest
    @ValueSource(strings = {"/", "//", "/.", "/%2e", "/%2E/", "/x/..", "/./", "/x/%2e%2e", "/?a=b", "/.?a=b"})
    void aRequestNoPrincipalSignedIsAnsweredBeforeItsBodyIsSentOnEverySpellingOfThePath(String path)
            throws Exception {
        try (Socket s = open()) {
            send(s, head(path, LIST, JSON, 2_000_000, null));
            Answer answer = answer(s);
            if (path.equals("//")) {
                // a request line Vert.x's codec does not take: answered 400 before any route, nothing logged, and a
                // body that follows discarded as it arrives, never held
                assertEquals(400, answer.status(), answer.toString());
                return;
            }
            assertEquals(403, answer.status(), answer.toString());
            assertEquals("MissingAuthenticationTokenException", answer.errorType());
            assertClosed(s);
        }
        try (Socket s = open()) {
            send(s, head(path, "Nobody.Knows", JSON, 2_000_000, "test"));
            assertEquals("UnknownOperationException", answer(s).errorType());
            assertClosed(s);
        }
        assertStillServing();
    }

    /**
     * A request Vert.x refuses before any route (no Host, a malformed one) is answered as the API answers and logged
     * nowhere: before, Quarkus's error handler wrote an ERROR line for each, which a caller could repeat at will.
     */
    @Test
    void aMalformedHostIsRefusedAndNotLogged() throws Exception {
        List<String> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.logging.Handler recorder = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                if (record.getLevel().intValue() >= java.util.logging.Level.SEVERE.intValue()) {
                    errors.add(record.getLoggerName() + ": " + record.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        java.util.logging.Logger.getLogger("").addHandler(recorder);
        try {
            for (String hostLine : List.of("", "Host: bad host name\r\n", "Host: [zz\r\n")) {
                try (Socket s = open()) {
                    send(s, "POST / HTTP/1.1\r\n" + hostLine + "Content-Length: 2000000\r\n\r\n");
                    Answer answer = answer(s);
                    assertEquals(400, answer.status(), answer.toString());
                    assertEquals("IncompleteSignatureException", answer.errorType(), hostLine);
                    assertClosed(s);
                }
            }
        } finally {
            java.util.logging.Logger.getLogger("").removeHandler(recorder);
        }
        assertEquals(List.of(), errors);
        assertStillServing();
    }

    /** Any other path is no API's: refused from the head too, never read. */
    @ParameterizedTest
    @ValueSource(strings = {"/x", "/%2F", "/;a", "/q/health"})
    void aPostToAnotherPathIsRefusedFromItsHead(String path) throws Exception {
        try (Socket s = open()) {
            send(s, head(path, LIST, JSON, 2_000_000, "test"));
            Answer answer = answer(s);
            assertEquals(404, answer.status(), answer.toString());
            assertClosed(s);
        }
    }

    /**
     * A key no principal has is read as a key of one is, and refused in the words of a wrong secret, in the CBOR the
     * Java SDK's Kinesis clients speak too: before, it was an UnrecognizedClientException from the headers alone,
     * which told a caller without any secret which key ids the service knows.
     */
    @Test
    void anUnknownKeyIsAnsweredAsAWrongSecretIs() throws Exception {
        for (String type : List.of(JSON, "application/x-amz-cbor-1.1")) {
            Answer unknown = call(head("/", LIST, type, 2, "NOSUCHKEY") + "{}");
            Answer wrongSecret = call(head("/", LIST, type, 2, "test") + "{}");
            assertEquals(400, unknown.status(), unknown.toString());
            assertEquals("InvalidSignatureException", unknown.errorType());
            assertEquals(wrongSecret.toString(), unknown.toString());
            if (type.contains("cbor")) {
                JsonNode body = new ObjectMapper(new CBORFactory()).readTree(unknown.body());
                assertEquals("InvalidSignatureException", body.path("__type").asText());
            }
        }
    }

    /** A request that leaves the operation unsigned is refused from its head: it could be replayed as another. */
    @Test
    void aRequestThatDoesNotSignItsTargetIsRefusedFromItsHead() throws Exception {
        try (Socket s = open()) {
            send(s, head("/", LIST, JSON, 2_000_000, "test").replace(";x-amz-target", ""));
            Answer answer = answer(s);
            assertEquals("IncompleteSignatureException", answer.errorType(), answer.toString());
            assertClosed(s);
        }
    }

    @Test
    void aBodyThatStallsIsCutByTheLeastRate() throws Exception {
        try (Socket s = open()) {
            long began = System.nanoTime();
            send(s, head("/", LIST, JSON, 1_000, "test") + "{\"MaxResults\"");
            Answer answer = answer(s);
            long tookMillis = (System.nanoTime() - began) / 1_000_000;
            assertEquals(408, answer.status(), answer.toString());
            assertTrue(answer.toString().contains("delivery.api.min-body-rate"), answer.toString());
            assertTrue(tookMillis >= 450 && tookMillis < 3_900, "cut after " + tookMillis + " ms");
            assertClosed(s);
        }
        assertStillServing();
    }

    @Test
    void aBodyThatKeepsTricklingIsCutAtTheDeadline() throws Exception {
        try (Socket s = open()) {
            long began = System.nanoTime();
            send(s, head("/", LIST, JSON, 1_500_000, "test"));
            Thread writer = new Thread(() -> {
                try {
                    for (int i = 0; i < 40; i++) { // 100 KB a second, above the least rate
                        send(s, " ".repeat(25_000));
                        Thread.sleep(250);
                    }
                } catch (IOException | InterruptedException closed) {
                    // the server cut it
                }
            });
            writer.start();
            Answer answer = answer(s);
            long tookMillis = (System.nanoTime() - began) / 1_000_000;
            writer.interrupt();
            assertEquals(408, answer.status(), answer.toString());
            assertTrue(answer.toString().contains("delivery.api.request-deadline"), answer.toString());
            assertTrue(tookMillis >= 3_900 && tookMillis < 15_000, "cut after " + tookMillis + " ms");
            assertClosed(s);
        }
        assertStillServing();
    }

    /**
     * Declaring a body costs nothing until it arrives: before, each of these held its declared 400 KB of the 1 MB
     * budget, and the third and later were refused 503 (as every other caller was, for as long as they were held).
     */
    @Test
    void headersAloneHoldNothingOfTheBudget() throws Exception {
        List<Socket> declaring = new ArrayList<>();
        try {
            for (int i = 0; i < 10; i++) {
                Socket s = open();
                declaring.add(s);
                send(s, head("/", LIST, JSON, 400_000, "test"));
            }
            assertStillServing();
            for (Socket s : declaring) {
                Answer answer = answer(s);
                assertEquals(408, answer.status(), answer.toString()); // the least rate, not the budget
            }
        } finally {
            for (Socket s : declaring) {
                s.close();
            }
        }
    }

    /**
     * The budget's shares (1000 KB in all, 600 KB a key, 200 KB for the stages alone) as bodies arrive: a second body
     * of one key past its share is refused while another key's is taken; past what other callers may hold, the stages'
     * principal still gets in. Before, bodies were charged by their declared length against the whole budget only.
     */
    @Test
    void aKeysShareIsBoundedAndTheStagesKeepTheirReserve() throws Exception {
        List<Socket> holding = new ArrayList<>();
        try {
            holding.add(holdAfter("test", 400_000)); // 400 KB of the key test's 600 KB
            awaitHeld(400_000);
            Answer secondOfTheKey = call(head("/", LIST, JSON, 300_000, "test") + " ".repeat(300_000));
            assertEquals(503, secondOfTheKey.status(), secondOfTheKey.toString());
            assertTrue(secondOfTheKey.toString().contains("delivery.api.body-budget-per-key"), secondOfTheKey.toString());

            Answer anotherKey = call(head("/", LIST, JSON, 300_000, "OTHERKEY") + " ".repeat(300_000));
            assertEquals("InvalidSignatureException", anotherKey.errorType(), "read whole: " + anotherKey);

            holding.add(holdAfter("ASIATEMPORARY", 400_000)); // others now hold 800 KB, all they may
            awaitHeld(800_000);
            Answer pastOthers = call(head("/", LIST, JSON, 100_000, "OTHERKEY") + " ".repeat(100_000));
            assertEquals(503, pastOthers.status(), pastOthers.toString());
            assertTrue(pastOthers.toString().contains("delivery.api.body-budget)"), pastOthers.toString());

            Answer stages = call(head("/", "AWSGlue.GetSchemaVersion", JSON, 150_000, "STAGESKEY")
                    + " ".repeat(150_000));
            assertEquals("InvalidSignatureException", stages.errorType(), "read whole: " + stages);
        } finally {
            for (Socket s : holding) {
                s.close();
            }
        }
        assertStillServing();
    }

    /**
     * Until the bodies under way hold {@code bytes}: on a loaded machine the gate had not received the second holder's
     * 400 KB 300 ms after they were sent, and the body that was to be refused fit (scripts/flaky-hunt.sh, 1 run in 6).
     */
    private void awaitHeld(long bytes) throws InterruptedException {
        for (long deadline = System.nanoTime() + 10_000_000_000L; gate.bodyBytesHeld() < bytes; Thread.sleep(20)) {
            assertTrue(System.nanoTime() < deadline, "the gate holds " + gate.bodyBytesHeld() + " bytes, not " + bytes);
        }
    }

    /** A connection whose body of {@code key}'s stops {@code sent} bytes in, 100 KB short of what it declared. */
    private Socket holdAfter(String key, int sent) throws IOException {
        Socket s = open();
        send(s, head("/", LIST, JSON, sent + 100_000, key) + " ".repeat(sent));
        return s;
    }

    private Answer call(String request) throws IOException {
        try (Socket s = open()) {
            try {
                send(s, request);
            } catch (IOException refusedWhileSending) {
                // the answer came first and the connection is closing: read it
            }
            return answer(s);
        }
    }

    private Socket open() throws IOException {
        Socket s = new Socket(url.getHost(), url.getPort());
        s.setSoTimeout(10_000);
        return s;
    }

    /** A POST's head to {@code path} declaring {@code length} bytes of body, signed (well-formed, wrong) by
     * {@code key} if any. */
    private String head(String path, String target, String type, int length, String key) {
        String now = AMZ_DATE.format(Instant.now());
        String authorization = key == null ? "" : "Authorization: AWS4-HMAC-SHA256 Credential=" + key + "/"
                + now.substring(0, 8) + "/us-east-1/" + (target.startsWith("AWSGlue") ? "glue" : "kinesis")
                + "/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=" + "0".repeat(64) + "\r\n";
        return "POST " + path + " HTTP/1.1\r\nHost: " + url.getHost() + ":" + url.getPort() + "\r\nContent-Type: "
                + type + "\r\nX-Amz-Target: " + target + "\r\nX-Amz-Date: " + now + "\r\n" + authorization
                + "Content-Length: " + length + "\r\n\r\n";
    }

    private static void send(Socket s, String text) throws IOException {
        s.getOutputStream().write(text.getBytes(StandardCharsets.ISO_8859_1));
        s.getOutputStream().flush();
    }

    record Answer(int status, String errorType, byte[] body) {
        @Override
        public String toString() {
            return status + " " + errorType + " " + new String(body, StandardCharsets.UTF_8);
        }
    }

    /** The status, error type and body of the answer (with Content-Length, as Vert.x sends a whole response). */
    private static Answer answer(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        String status = line(in);
        String errorType = null;
        int length = 0;
        for (String header = line(in); !header.isEmpty(); header = line(in)) {
            String lower = header.toLowerCase();
            if (lower.startsWith("x-amzn-errortype:")) {
                errorType = header.substring(header.indexOf(':') + 1).strip();
            } else if (lower.startsWith("content-length:")) {
                length = Integer.parseInt(header.substring(header.indexOf(':') + 1).strip());
            }
        }
        return new Answer(Integer.parseInt(status.split(" ")[1]), errorType, in.readNBytes(length));
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c == -1) {
                throw new IOException("the connection closed before an answer: " + line);
            }
            if (c != '\r') {
                line.write(c);
            }
        }
        return line.toString(StandardCharsets.ISO_8859_1);
    }

    private static void assertClosed(Socket s) throws IOException {
        s.setSoTimeout(5_000);
        try {
            assertEquals(-1, s.getInputStream().read(), "the server sent more after its answer");
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the connection is still open 5 s after the refusal");
        } catch (IOException reset) {
            // closed by a reset: closed all the same
        }
    }

    private void assertStillServing() throws Exception {
        try (KinesisClient kinesis = KinesisClient.builder().endpointOverride(url.toURI()).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClientBuilder(UrlConnectionHttpClient.builder()).build()) {
            assertTrue(kinesis.listChannels(r -> r.maxResults(1)).sdkHttpResponse().isSuccessful());
        }
    }
}
