package io.streamtables.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.streamtables.auth.TestSigning;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.DataFormat;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * Hostile requests, signed so that they pass the door and reach the parsers: random bytes, bodies past the cap,
 * nesting and numbers past Jackson's limits, wrong content types and targets. Each is answered with a 4xx in
 * bounded time, and the API keeps serving signed requests of the official clients meanwhile.
 */
@QuarkusTest
class HostileRequestsTest {

    static final String[] TARGETS = {"Kinesis_20131202.CreateChannel", "Kinesis_20131202.ListChannels",
        "Kinesis_20131202.DescribeChannel", "AWSGlue.CreateSchema", "AWSGlue.GetSchemaVersion",
        "AWSGlue.RegisterSchemaVersion", "Kinesis_20131202.PutRecord", "AWSGlue.Nope", "Nothing"};
    static final String[] TYPES = {"application/x-amz-json-1.1", "application/x-amz-cbor-1.1", "text/plain", null};

    @TestHTTPResource("/")
    URL url;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    /** The refusals of the door: a request that meets one was not signed right, and tests nothing further. */
    static final List<String> DOOR = List.of("InvalidSignatureException", "IncompleteSignatureException",
            "UnrecognizedClientException", "MissingAuthenticationTokenException");

    private HttpResponse<byte[]> send(String target, String type, byte[] body) throws Exception {
        return http.send(TestSigning.signedPost(url.toURI(), target, type, body), HttpResponse.BodyHandlers.ofByteArray());
    }

    /** The AWS error type of a refusal (the header every answer of ours carries, in JSON and CBOR alike). */
    private String errorType(String target, String type, byte[] body) throws Exception {
        HttpResponse<byte[]> response = send(target, type, body);
        assertEquals(400, response.statusCode(), target);
        return response.headers().firstValue("x-amzn-ErrorType").orElse("none");
    }

    private void assertStillServing() throws Exception {
        try (KinesisClient kinesis = KinesisClient.builder().endpointOverride(url.toURI()).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClientBuilder(UrlConnectionHttpClient.builder()).build()) {
            assertTrue(kinesis.listChannels(r -> r.maxResults(1)).sdkHttpResponse().isSuccessful());
        }
    }

    @Test
    void randomBytesAnyTypeAnyTargetAreClientErrors() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            // 16 bytes at least: an empty body is a valid empty request (ListChannels), and so could "{}" be
            byte[] body = new byte[16 + random.nextInt(4080)];
            random.nextBytes(body);
            if (i % 3 == 0 && body.length > 0) {
                body[0] = (byte) (i % 2 == 0 ? '{' : 0xBF); // a JSON object or a CBOR indefinite map, then noise
            }
            String target = TARGETS[random.nextInt(TARGETS.length)];
            String type = TYPES[random.nextInt(TYPES.length)];
            HttpResponse<byte[]> response = send(target, type, body);
            String error = response.headers().firstValue("x-amzn-ErrorType").orElse("");
            if (response.statusCode() < 400 || response.statusCode() >= 500 || DOOR.contains(error)) {
                failures.add(target + " " + type + " " + body.length + " bytes: " + response.statusCode() + " " + error);
            }
        }
        assertTrue(failures.isEmpty(), "seed " + seed + ": " + failures);
        assertStillServing();
    }

    @Test
    void nestingAndNumbersPastTheParsersLimitsAreRefused() throws Exception {
        int depth = 100_000;
        byte[] nestedJson = ("{\"ChannelName\":" + "[".repeat(depth) + "]".repeat(depth) + "}")
                .getBytes(StandardCharsets.US_ASCII);
        assertEquals("SerializationException", errorType("Kinesis_20131202.CreateChannel", "application/x-amz-json-1.1",
                nestedJson), "Jackson's nesting limit, not a rule of the operation");
        byte[] nestedCbor = new byte[depth];
        Arrays.fill(nestedCbor, (byte) 0x81); // an array of one array of one array ...
        // {"SchemaName": [[[...[]...]]]}: complete, and too deep
        byte[] key = "SchemaName".getBytes(StandardCharsets.US_ASCII);
        byte[] closedCbor = new byte[2 + key.length + depth + 1];
        closedCbor[0] = (byte) 0xA1; // a map of one pair
        closedCbor[1] = (byte) (0x60 + key.length); // a short text string
        System.arraycopy(key, 0, closedCbor, 2, key.length);
        Arrays.fill(closedCbor, 2 + key.length, closedCbor.length - 1, (byte) 0x81); // arrays of one item
        closedCbor[closedCbor.length - 1] = (byte) 0x80; // the innermost one empty
        assertEquals("SerializationException", errorType("AWSGlue.CreateSchema", "application/x-amz-cbor-1.1",
                closedCbor));
        assertEquals("SerializationException", errorType("AWSGlue.CreateSchema", "application/x-amz-cbor-1.1",
                nestedCbor));
        byte[] longNumber = ("{\"MaxResults\":" + "9".repeat(1_000_000) + "}").getBytes(StandardCharsets.US_ASCII);
        assertEquals("SerializationException", errorType("Kinesis_20131202.ListChannels", "application/x-amz-json-1.1",
                longNumber), "Jackson's number-length limit, not MaxResults' range");
        assertStillServing();
    }

    /** The body cap (quarkus.http.limits.max-body-size, 2 MiB) stops a request before anything reads it all. */
    @Test
    void aBodyPastTheCapIsTooLarge() throws Exception {
        byte[] huge = ("{\"Description\":\"" + "x".repeat(3 << 20) + "\"}").getBytes(StandardCharsets.US_ASCII);
        // asked before the body is sent (Expect: 100-continue), the server refuses on the declared length (on a raw
        // socket: java.net.http of JDK 17 waits forever for the body of a final answer to such a request)
        try (java.net.Socket s = new java.net.Socket(url.getHost(), url.getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(("POST / HTTP/1.1\r\nHost: " + url.getHost() + "\r\nExpect: 100-continue\r\n"
                    + "X-Amz-Target: AWSGlue.CreateRegistry\r\nContent-Length: " + huge.length + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertTrue(answer.startsWith("HTTP/1.1 413 ") && answer.contains("RequestEntityTooLargeException"), answer);
        }
        try (GlueClient glue = GlueClient.builder().endpointOverride(url.toURI()).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClientBuilder(UrlConnectionHttpClient.builder()).build()) {
            // the server answers 413 and closes while the SDK may still be writing: either way, it is refused
            SdkException e = assertThrows(SdkException.class, () -> glue.createSchema(r -> r
                    .schemaName("huge").dataFormat(DataFormat.JSON).schemaDefinition("{\"title\":\""
                            + "y".repeat(3 << 20) + "\"}")));
            if (e instanceof AwsServiceException refused) {
                assertEquals(413, refused.statusCode());
            }
            assertTrue(glue.listSchemas(r -> { }).schemas().stream().noneMatch(x -> x.schemaName().equals("huge")));
            // under the cap, the registry's own rule names the field
            AwsServiceException tooLong = assertThrows(AwsServiceException.class, () -> glue.createSchema(r -> r
                    .schemaName("long").dataFormat(DataFormat.JSON).schemaDefinition("{\"title\":\""
                            + "y".repeat(200_000) + "\"}")));
            assertEquals(400, tooLong.statusCode());
            assertTrue(tooLong.awsErrorDetails().errorMessage().contains("SchemaDefinition must be at most"),
                    tooLong.awsErrorDetails().errorMessage());
        }
        assertStillServing();
    }

    /**
     * A request that signs the event-stream content type (which the SDK's signer special-cases: the check of before
     * called it and answered 500 with an ERROR) needs only a known key to reach the check: a 400, nothing at ERROR.
     */
    @Test
    void anEventStreamContentTypeIsRefusedWithNothingLoggedAtError() throws Exception {
        List<String> errors = new CopyOnWriteArrayList<>();
        Handler recorder = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.SEVERE.intValue()) {
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
        Logger.getLogger("").addHandler(recorder);
        try {
            String now = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC)
                    .format(Instant.now());
            HttpRequest request = HttpRequest.newBuilder(url.toURI())
                    .POST(HttpRequest.BodyPublishers.ofString("{}"))
                    .header("Content-Type", "application/vnd.amazon.eventstream")
                    .header("X-Amz-Target", "Kinesis_20131202.ListChannels").header("X-Amz-Date", now)
                    .header("Authorization", "AWS4-HMAC-SHA256 Credential=test/" + now.substring(0, 8)
                            + "/us-east-1/kinesis/aws4_request, SignedHeaders=content-type;host;x-amz-date;"
                            + "x-amz-target, Signature=" + "0".repeat(64)).build();
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            assertEquals(400, response.statusCode(), response.body());
            assertEquals("InvalidSignatureException", response.headers().firstValue("x-amzn-ErrorType").orElse(""));
        } finally {
            Logger.getLogger("").removeHandler(recorder);
        }
        assertEquals(List.of(), errors);
        assertStillServing();
    }
}
