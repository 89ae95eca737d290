package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.DataFormat;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ResourceInUseException;
import software.amazon.awssdk.services.kinesis.model.StreamStatus;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The command-line client (deploy/cli, run as {@code java -jar} like scripts/channels runs it) against the
 * all-in-one: the seed's own example files, with only their placeholders replaced as a user would, through the
 * seed's commands: create, describe until ACTIVE, list, update, delete; and the service's refusals printed.
 */
class ChannelsCliIT {

    static final Path JAR = Path.of(System.getProperty("streamtables.cli.jar", "../cli/target/streamtables-cli.jar"));
    static final ObjectMapper JSON = new ObjectMapper();
    static final String CHANNEL_ARN = "arn:aws:kinesis:" + Peers.REGION + ":" + Peers.ACCOUNT + ":channel/my-iceberg-channel";
    static final String ROLE_ARN = "arn:aws:iam::" + Peers.ACCOUNT + ":role/my-kds-channel-role";
    static final String KEY_ARN = "arn:aws:kms:" + Peers.REGION + ":" + Peers.ACCOUNT + ":key/1234abcd-12ab-34cd-56ef-1234567890ab";

    record Result(int exit, String out, String err) {
        JsonNode json() throws IOException {
            return JSON.readTree(out);
        }
    }

    private int commands;

    @Test
    void managesAChannelWithTheSeedsFilesAndCommands() throws Exception {
        assertTrue(Files.exists(JAR), JAR.toAbsolutePath() + " is missing: package deploy/cli first");
        String suffix = Long.toString(System.currentTimeMillis(), 36);
        String stream = "cli-" + suffix;
        String streamArn = "arn:aws:kinesis:" + Peers.REGION + ":" + Peers.ACCOUNT + ":stream/" + stream;
        Path dir = AllInOneProcess.tempDir("cli");
        Path channels = Files.writeString(dir.resolve("channels.json"), "[]");
        String warehouse = "wh-cli-" + suffix;
        try (KinesisClient kinesis = Peers.kinesis(); S3Client s3 = Peers.s3()) {
            try {
                kinesis.createStream(r -> r.streamName(stream).shardCount(1));
            } catch (ResourceInUseException retried) {
                // the SDK's retry of our own call that timed out on a busy kinesis-local: the name is unique
            }
            s3.createBucket(r -> r.bucket(warehouse));
            try { // the seed's DLQ bucket, which the channel's CREATING checks look for
                s3.createBucket(r -> r.bucket("my-kds-iceberg-dlq-" + Peers.ACCOUNT));
            } catch (software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException
                    | software.amazon.awssdk.services.s3.model.BucketAlreadyExistsException existsFromAnEarlierRun) {
                // S3Proxy keeps buckets while it runs
            }
            awaitStreamActive(kinesis, stream);
            try (AllInOneProcess app = new AllInOneProcess(dir, Peers.appConfig(dir, channels,
                    Peers.catalog("jdbc:sqlite:" + dir.resolve("catalog.db"), warehouse))).start()) {
                registerSeedSchema(app);
                for (String file : List.of("stream-config.json", "s3-tables-dest.json", "logging.json")) {
                    Files.writeString(dir.resolve(file), seedFile(file).replace("STREAM_ARN", streamArn)
                            .replace("REGION", Peers.REGION).replace("ACCOUNT_ID", Peers.ACCOUNT));
                }
                long start = System.nanoTime();
                run(app, dir, streamArn);
                System.out.printf("cli: %d commands in %d ms%n", commands, (System.nanoTime() - start) / 1_000_000);
            } finally {
                kinesis.deleteStream(r -> r.streamName(stream));
            }
        }
    }

    private void run(AllInOneProcess app, Path dir, String streamArn) throws Exception {
        Result created = cli(dir, "create-channel", "--region", Peers.REGION, "--endpoint-url", app.url(),
                "--channel-name", "my-iceberg-channel",
                "--service-execution-role-arn", ROLE_ARN,
                "--stream-configuration-list", "file://stream-config.json",
                "--s3-tables-destination-configuration", "file://s3-tables-dest.json",
                "--logging-configuration", "file://logging.json",
                "--encryption-configuration", "{\"EncryptionType\": \"KMS\", \"KeyId\": \"" + KEY_ARN + "\"}");
        assertEquals(0, created.exit(), created.err());
        assertTrue(created.out().startsWith("{\n    \"ChannelDescription\": {\n        \"ChannelName\": \"my-iceberg-channel\",\n"),
                "the AWS CLI's layout:\n" + created.out());
        JsonNode description = created.json().path("ChannelDescription");
        assertEquals(CHANNEL_ARN, description.path("ChannelARN").asText());
        assertTrue(List.of("CREATING", "ACTIVE").contains(description.path("ChannelStatus").asText()), created.out());

        // The seed: describe-channel until ACTIVE; the endpoint here from the variable the AWS CLI reads too
        long createdAt = System.nanoTime();
        awaitActive(app, dir);
        System.out.printf("cli: ACTIVE %d ms after create-channel%n", (System.nanoTime() - createdAt) / 1_000_000);
        description = describe(app, dir).path("ChannelDescription");
        assertEquals(ROLE_ARN, description.path("ServiceExecutionRoleARN").asText());
        assertEquals(file(dir, "stream-config.json"), description.path("StreamConfigurationList"));
        assertEquals(file(dir, "s3-tables-dest.json"), description.path("S3TablesDestinationConfiguration"));
        assertEquals(file(dir, "logging.json"), description.path("LoggingConfiguration"));
        assertEquals(KEY_ARN, description.path("EncryptionConfiguration").path("KeyId").asText());
        assertTrue(description.path("ChannelCreationTimestamp").isNumber(), description.toString());

        // The seed's --stream-filter is one object
        Result listed = cli(dir, "list-channels", "--region", Peers.REGION, "--endpoint-url", app.url(),
                "--stream-filter", "{\"StreamARN\": \"" + streamArn + "\"}");
        assertEquals(0, listed.exit(), listed.err());
        JsonNode summaries = listed.json().path("ChannelSummaries");
        assertEquals(1, summaries.size(), listed.out());
        assertEquals(CHANNEL_ARN, summaries.get(0).path("ChannelARN").asText());
        assertEquals(streamArn, summaries.get(0).path("Streams").get(0).path("StreamARN").asText());
        Result other = cli(dir, "list-channels", "--region", Peers.REGION, "--endpoint-url", app.url(),
                "--stream-filter", "[{\"StreamARN\": \"" + streamArn + "-other\"}]", "--max-results", "10");
        assertEquals(0, other.json().path("ChannelSummaries").size(), other.out());

        // SPEC C5: freshness and logging change, nothing else
        String logging = "{\"CloudWatchLogs\": {\"Enabled\": false, \"LogGroupName\": \"/aws/kinesis/my-iceberg-channel\", "
                + "\"LogStreamName\": \"DestinationDelivery\"}}";
        Files.writeString(dir.resolve("logging-off.json"), logging);
        Result updated = cli(dir, "update-channel", "--region", Peers.REGION, "--endpoint-url", app.url(),
                "--channel-arn", CHANNEL_ARN,
                "--s3-tables-destination-configuration", "{\"DataFreshnessInSeconds\": 600}",
                "--logging-configuration", "file://logging-off.json");
        assertEquals(0, updated.exit(), updated.err());
        JsonNode after = describe(app, dir).path("ChannelDescription");
        assertEquals(600, after.path("S3TablesDestinationConfiguration").path("DataFreshnessInSeconds").asInt());
        assertEquals(JSON.readTree(logging), after.path("LoggingConfiguration"));
        assertEquals(file(dir, "s3-tables-dest.json").path("S3TablesConfigurationList"),
                after.path("S3TablesDestinationConfiguration").path("S3TablesConfigurationList"));

        Result refusedUpdate = cli(dir, "update-channel", "--region", Peers.REGION, "--endpoint-url", app.url(),
                "--channel-arn", CHANNEL_ARN, "--s3-tables-destination-configuration", "file://s3-tables-dest.json");
        assertServiceError(refusedUpdate, "UpdateChannel", "InvalidArgumentException",
                "S3TablesDestinationConfiguration.DeadLetterQueueS3Configuration cannot be updated");

        // A bad file: the service's 400 names the field
        Files.writeString(dir.resolve("bad-dest.json"), Files.readString(dir.resolve("s3-tables-dest.json"))
                .replace("\"ZSTD\"", "\"GZIP\""));
        Result bad = cli(dir, "create-channel", "--region", Peers.REGION, "--endpoint-url", app.url(),
                "--channel-name", "my-other-channel", "--service-execution-role-arn", ROLE_ARN,
                "--stream-configuration-list", "file://stream-config.json",
                "--s3-tables-destination-configuration", "file://bad-dest.json");
        assertServiceError(bad, "CreateChannel", "InvalidArgumentException", "CompressionType");
        Result deleted = cli(dir, "delete-channel", "--region", Peers.REGION, "--endpoint-url", app.url(),
                "--channel-arn", CHANNEL_ARN);
        assertEquals(0, deleted.exit(), deleted.err());
        assertEquals("", deleted.out());
        // SPEC C4: DELETING until every stage has let the channel go, then gone
        Result deleting = cli(dir, "describe-channel", "--region", Peers.REGION, "--endpoint-url", app.url(),
                "--channel-arn", CHANNEL_ARN, "--query", "ChannelDescription.ChannelStatus");
        assertEquals("\"DELETING\"\n", deleting.out(), deleting.err());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Result gone;
        do {
            Thread.sleep(500);
            gone = cli(dir, "describe-channel", "--region", Peers.REGION, "--endpoint-url", app.url(),
                    "--channel-arn", CHANNEL_ARN);
        } while (gone.exit() == 0 && System.nanoTime() < deadline);
        assertServiceError(gone, "DescribeChannel", "ResourceNotFoundException", CHANNEL_ARN);
    }

    /** The seed's describe-channel --query 'ChannelDescription.ChannelStatus', until it prints "ACTIVE". */
    private void awaitActive(AllInOneProcess app, Path dir) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String status;
        do {
            Result r = cli(dir, Map.of("AWS_ENDPOINT_URL_KINESIS", app.url()), "describe-channel", "--region",
                    Peers.REGION, "--channel-arn", CHANNEL_ARN, "--query", "ChannelDescription.ChannelStatus");
            assertEquals(0, r.exit(), r.err());
            status = r.out();
            if (status.equals("\"ACTIVE\"\n")) {
                return;
            }
            assertEquals("\"CREATING\"\n", status);
            Thread.sleep(300);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("channel not ACTIVE in 30 s: " + status + "\n" + app.tail());
    }

    private JsonNode describe(AllInOneProcess app, Path dir) throws Exception {
        Result r = cli(dir, "describe-channel", "--region", Peers.REGION, "--endpoint-url", app.url(),
                "--channel-arn", CHANNEL_ARN);
        assertEquals(0, r.exit(), r.err());
        return r.json();
    }

    private static void assertServiceError(Result r, String operation, String type, String text) {
        assertEquals(254, r.exit(), r.out() + r.err());
        assertEquals("", r.out());
        String prefix = "\nAn error occurred (" + type + ") when calling the " + operation + " operation: ";
        assertTrue(r.err().startsWith(prefix) && r.err().contains(text), r.err());
    }

    private Result cli(Path dir, String... args) throws Exception {
        return cli(dir, Map.of(), args);
    }

    /** The client's jar in the working directory of the files, with the credentials in the environment. */
    private Result cli(Path dir, Map<String, String> env, String... args) throws Exception {
        commands++;
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-jar", JAR.toAbsolutePath().toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
        builder.environment().keySet().removeIf(k -> k.startsWith("AWS_"));
        builder.environment().put("AWS_ACCESS_KEY_ID", Peers.KEY);
        builder.environment().put("AWS_SECRET_ACCESS_KEY", Peers.SECRET);
        builder.environment().putAll(env);
        Process process = builder.start();
        process.getOutputStream().close();
        var err = new java.util.concurrent.CompletableFuture<String>();
        Thread reader = new Thread(() -> err.complete(read(process.getErrorStream())));
        reader.start();
        String out = read(process.getInputStream());
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the client did not exit in 30 s: " + String.join(" ", args));
        }
        return new Result(process.exitValue(), out, err.get(5, TimeUnit.SECONDS));
    }

    private static String read(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    private static JsonNode file(Path dir, String name) throws IOException {
        return JSON.readTree(dir.resolve(name).toFile());
    }

    /** The seed's file as the seed prints it (test resources seed/), placeholders included. */
    private static String seedFile(String name) throws IOException {
        try (InputStream in = ChannelsCliIT.class.getResourceAsStream("/seed/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** The seed's GSRSchemaARN, registry my-kds-registry, schema my-event-schema, registered as a user would. */
    private static void registerSeedSchema(AllInOneProcess app) {
        try (GlueClient glue = GlueClient.builder().endpointOverride(URI.create(app.url())).region(Region.of(Peers.REGION))
                .credentialsProvider(GsrEndToEndIT.CREDENTIALS).httpClientBuilder(UrlConnectionHttpClient.builder()).build()) {
            glue.createRegistry(r -> r.registryName("my-kds-registry"));
            glue.createSchema(r -> r.registryId(id -> id.registryName("my-kds-registry")).schemaName("my-event-schema")
                    .dataFormat(DataFormat.JSON).compatibility("NONE").schemaDefinition(Events.SCHEMA));
        }
    }

    private static void awaitStreamActive(KinesisClient kinesis, String stream) throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            if (kinesis.describeStreamSummary(r -> r.streamName(stream)).streamDescriptionSummary().streamStatus()
                    == StreamStatus.ACTIVE) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("stream " + stream + " not ACTIVE");
    }
}
