package io.streamtables.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole client against a small HTTP server that records what arrives and answers what the test sets.
 * Credentials: aws.accessKeyId / aws.secretAccessKey, set for the tests in the pom (the SDK's default chain).
 */
class CliTest {

    record Received(String target, String contentType, String authorization, String body) {
    }

    @TempDir
    Path dir;

    HttpServer server;
    final List<Received> received = new ArrayList<>();
    int status = 200;
    String answer = "{}";
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            received.add(new Received(exchange.getRequestHeaders().getFirst("X-Amz-Target"),
                    exchange.getRequestHeaders().getFirst("Content-Type"),
                    exchange.getRequestHeaders().getFirst("Authorization"),
                    new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
            byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.1");
            exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    int run(Map<String, String> env, String... args) {
        return new Cli(new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                env, dir).run(args);
    }

    @Test
    void sendsASignedJsonRequestAndPrintsTheAnswerLikeTheAwsCli() throws Exception {
        Files.writeString(dir.resolve("logging.json"), "{\"CloudWatchLogs\": {\"Enabled\": false}}");
        answer = "{\"ChannelDescription\":{\"ChannelARN\":\"arn:aws:kinesis:eu-west-1:123456789012:channel/c\","
                + "\"ChannelCreationTimestamp\":1795982400.125,\"S3TablesDestinationConfiguration\":{\"DataFreshnessInSeconds\":600}}}";
        int exit = run(Map.of(), "update-channel", "--region", "eu-west-1", "--endpoint-url", endpoint(),
                "--channel-arn", "arn:aws:kinesis:eu-west-1:123456789012:channel/c",
                "--s3-tables-destination-configuration", "{\"DataFreshnessInSeconds\": 600}",
                "--logging-configuration", "file://logging.json");
        assertEquals(0, exit, err.toString());
        Received r = received.get(0);
        assertEquals("Kinesis_20131202.UpdateChannel", r.target());
        assertEquals("application/x-amz-json-1.1", r.contentType());
        assertTrue(r.authorization().matches("AWS4-HMAC-SHA256 Credential=AKIDCLITEST/\\d{8}/eu-west-1/kinesis/aws4_request, "
                + "SignedHeaders=[a-z0-9;-]*x-amz-target[a-z0-9;-]*, Signature=[0-9a-f]{64}"), r.authorization());
        ObjectMapper json = new ObjectMapper();
        assertEquals(json.readTree("{\"ChannelARN\": \"arn:aws:kinesis:eu-west-1:123456789012:channel/c\","
                + "\"S3TablesDestinationConfiguration\": {\"DataFreshnessInSeconds\": 600},"
                + "\"LoggingConfiguration\": {\"CloudWatchLogs\": {\"Enabled\": false}}}"), json.readTree(r.body()));
        assertEquals("""
                {
                    "ChannelDescription": {
                        "ChannelARN": "arn:aws:kinesis:eu-west-1:123456789012:channel/c",
                        "ChannelCreationTimestamp": 1795982400.125,
                        "S3TablesDestinationConfiguration": {
                            "DataFreshnessInSeconds": 600
                        }
                    }
                }
                """, out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void serviceErrorsPrintTheTypeAndMessageAndExit254() {
        status = 400;
        answer = "{\"__type\":\"InvalidArgumentException\",\"message\":\"CompressionType must be one of NONE, ZSTD, SNAPPY\"}";
        int exit = run(Map.of("AWS_ENDPOINT_URL_KINESIS", endpoint()), "create-channel", "--region", "us-east-1",
                "--channel-name", "c", "--stream-configuration-list", "[]");
        assertEquals(254, exit);
        assertEquals("", out.toString());
        assertEquals("\nAn error occurred (InvalidArgumentException) when calling the CreateChannel operation: "
                + "CompressionType must be one of NONE, ZSTD, SNAPPY\n", err.toString());
    }

    @Test
    void errorTypesLoseTheirNamespaceAndAnEmptyAnswerPrintsNothing() {
        status = 400;
        answer = "{\"__type\":\"com.amazonaws.kinesis#ResourceNotFoundException\",\"Message\":\"no such channel\"}";
        assertEquals(254, run(Map.of("AWS_ENDPOINT_URL", endpoint()), "delete-channel", "--region", "us-east-1",
                "--channel-arn", "arn:x"));
        assertTrue(err.toString().contains("(ResourceNotFoundException) when calling the DeleteChannel operation: "
                + "no such channel"), err.toString());

        status = 200;
        answer = "{}";
        err.reset();
        assertEquals(0, run(Map.of(), "delete-channel", "--region", "us-east-1", "--endpoint-url", endpoint(),
                "--no-sign-request", "--channel-arn", "arn:x"));
        assertEquals("", out.toString() + err);
        assertNull(received.get(1).authorization());
        assertEquals("{\"ChannelARN\":\"arn:x\"}", received.get(1).body());
    }

    @Test
    void usageAndConnectionProblemsExitWithTheirCodes() {
        assertEquals(2, run(Map.of(), "describe-channel", "--endpoint-url", endpoint()));
        assertTrue(err.toString().startsWith("channels: error: Missing required option: '--channel-arn=VALUE'\n"
                + "Run 'channels describe-channel help' for the usage.\n"), err.toString());
        assertEquals(2, run(Map.of(), "update-channel", "--channel-arn", "a", "--logging-configuration", "{oops"));
        assertTrue(err.toString().contains("channels: error: cannot read --logging-configuration: invalid JSON"), err.toString());
        assertTrue(received.isEmpty(), "nothing sent for a wrong command line");

        err.reset();
        answer = "<html>a proxy</html>";
        assertEquals(255, run(Map.of(), "describe-channel", "--region", "us-east-1", "--endpoint-url", endpoint(),
                "--channel-arn", "arn:x"));
        assertTrue(err.toString().startsWith("channels: the endpoint URL \"" + endpoint() + "\" answered with something "
                + "that is not JSON: is it the channel API?"), err.toString());

        err.reset();
        server.stop(0);
        assertEquals(255, run(Map.of(), "describe-channel", "--region", "us-east-1", "--endpoint-url", endpoint(),
                "--channel-arn", "arn:x"));
        assertTrue(err.toString().startsWith("Could not reach the endpoint URL \"" + endpoint() + "\""), err.toString());
    }

    /** The seed's describe-channel --query 'ChannelDescription.ChannelStatus'. */
    @Test
    void queryPrintsThePartAsTheAwsCliDoes() {
        answer = "{\"ChannelDescription\":{\"ChannelStatus\":\"ACTIVE\"}}";
        assertEquals(0, run(Map.of(), "describe-channel", "--region", "us-east-1", "--endpoint-url", endpoint(),
                "--channel-arn", "arn:x", "--query", "ChannelDescription.ChannelStatus"));
        assertEquals("\"ACTIVE\"\n", out.toString());
        assertEquals(2, run(Map.of(), "describe-channel", "--channel-arn", "arn:x", "--query", "ChannelSummaries["));
        assertEquals(1, received.size());
        err.reset();
        assertEquals(2, run(Map.of(), "describe-channel", "--region", "us-east-1", "--endpoint-url", endpoint(),
                "--channel-arn", "arn:x", "--query", "abs(ChannelDescription)"), "a query that fails on the answer");
        assertTrue(err.toString().startsWith("channels: error: --query cannot be applied to the answer"), err.toString());
    }

    @Test
    void helpGoesToStdout() {
        assertEquals(0, run(Map.of(), "help"));
        assertTrue(out.toString().contains("\n  describe-channel  Calls DescribeChannel.\n"), out.toString());
        out.reset();
        assertEquals(0, run(Map.of(), "describe-channel", "help"));
        assertTrue(out.toString().contains("--channel-arn=VALUE"), out.toString());
    }
}
