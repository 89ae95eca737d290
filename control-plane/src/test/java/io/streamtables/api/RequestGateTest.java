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
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * {@link RequestGate} on raw sockets, as a hostile caller talks: a request no principal signed is answered from its
 * headers while its body has not been sent, a body that trickles is cut at the deadline (2 s here), and bodies under
 * way past the budget (1 MiB here) are refused 503; every refusal closes the connection, and signed requests go on.
 * Before the gate each of these sockets waited for an answer until the body was complete.
 */
@QuarkusTest
@TestProfile(RequestGateTest.SmallLimits.class)
class RequestGateTest {

    public static class SmallLimits implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("delivery.api.request-deadline", "2s", "delivery.api.body-budget", "1M");
        }
    }

    private static final DateTimeFormatter AMZ_DATE =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    @TestHTTPResource("/")
    URL url;

    @Test
    void aRequestNoPrincipalSignedIsAnsweredBeforeItsBodyIsSent() throws Exception {
        try (Socket s = open()) {
            send(s, head("Kinesis_20131202.ListChannels", "application/x-amz-json-1.1", 2_000_000, null));
            Answer answer = answer(s);
            assertEquals(403, answer.status(), answer.toString());
            assertEquals("MissingAuthenticationTokenException", answer.errorType());
            assertClosed(s);
        }
        try (Socket s = open()) { // a key no principal has, in the CBOR the Java SDK's Kinesis clients speak
            send(s, head("Kinesis_20131202.ListChannels", "application/x-amz-cbor-1.1", 2_000_000, "NOSUCHKEY"));
            Answer answer = answer(s);
            assertEquals(400, answer.status(), answer.toString());
            assertEquals("UnrecognizedClientException", answer.errorType());
            JsonNode body = new ObjectMapper(new CBORFactory()).readTree(answer.body());
            assertEquals("UnrecognizedClientException", body.path("__type").asText());
            assertTrue(body.path("message").asText().contains("NOSUCHKEY"), body.toString());
            assertClosed(s);
        }
        try (Socket s = open()) {
            send(s, head("Nobody.Knows", "application/x-amz-json-1.1", 2_000_000, "test"));
            assertEquals("UnknownOperationException", answer(s).errorType());
            assertClosed(s);
        }
        assertStillServing();
    }

    @Test
    void aBodyThatTricklesIsCutAtTheDeadline() throws Exception {
        try (Socket s = open()) {
            long began = System.nanoTime();
            send(s, head("Kinesis_20131202.ListChannels", "application/x-amz-json-1.1", 1_000, "test"));
            send(s, "{\"MaxResults\"");
            Answer answer = answer(s);
            long tookMillis = (System.nanoTime() - began) / 1_000_000;
            assertEquals(408, answer.status(), answer.toString());
            assertEquals("RequestTimeoutException", answer.errorType());
            assertTrue(answer.body().length > 0 && new String(answer.body(), StandardCharsets.UTF_8)
                    .contains("delivery.api.request-deadline"));
            assertTrue(tookMillis >= 1_900 && tookMillis < 10_000, "cut after " + tookMillis + " ms");
            assertClosed(s);
        }
        assertStillServing();
    }

    @Test
    void bodiesUnderWayPastTheBudgetAreRefusedAndTheBudgetComesBack() throws Exception {
        List<Socket> holding = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) { // 2 x 400 KB of the 1 MiB, their bodies not sent
                Socket s = open();
                holding.add(s);
                send(s, head("Kinesis_20131202.ListChannels", "application/x-amz-json-1.1", 400_000, "test"));
            }
            Thread.sleep(300);
            try (Socket third = open()) {
                send(third, head("Kinesis_20131202.ListChannels", "application/x-amz-json-1.1", 400_000, "test"));
                Answer answer = answer(third);
                assertEquals(503, answer.status(), answer.toString());
                assertEquals("ServiceUnavailableException", answer.errorType());
                assertClosed(third);
            }
        } finally {
            for (Socket s : holding) {
                s.close();
            }
        }
        // the closed connections gave their share back: the same request is admitted (and cut at the deadline)
        try (Socket again = open()) {
            send(again, head("Kinesis_20131202.ListChannels", "application/x-amz-json-1.1", 400_000, "test"));
            assertEquals(408, answer(again).status());
        }
        assertStillServing();
    }

    private Socket open() throws IOException {
        Socket s = new Socket(url.getHost(), url.getPort());
        s.setSoTimeout(10_000);
        return s;
    }

    /** A POST's head declaring {@code length} bytes of body, signed (well-formed, wrong) by {@code key} if any. */
    private String head(String target, String type, int length, String key) {
        String now = AMZ_DATE.format(Instant.now());
        String authorization = key == null ? "" : "Authorization: AWS4-HMAC-SHA256 Credential=" + key + "/"
                + now.substring(0, 8) + "/us-east-1/" + (target.startsWith("AWSGlue") ? "glue" : "kinesis")
                + "/aws4_request, SignedHeaders=host;x-amz-date;x-amz-target, Signature=" + "0".repeat(64) + "\r\n";
        return "POST / HTTP/1.1\r\nHost: " + url.getHost() + ":" + url.getPort() + "\r\nContent-Type: " + type
                + "\r\nX-Amz-Target: " + target + "\r\nX-Amz-Date: " + now + "\r\n" + authorization
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
