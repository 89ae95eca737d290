package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The API through the clients users have, none of them written here (docs/OPERATING.md "Authentication"): boto3, the
 * AWS CLI, the JavaScript SDK, curl (scripts/clients, installed by scripts/clients/install.sh) and the Java SDK's sync,
 * async (HTTP/2) and Glue clients ({@link JavaSdkColumns}). Each creates, reads and deletes what it can call, and signs
 * wrong four ways: the error type each client reports must be the one AWS would send. A missing client fails.
 */
final class ClientMatrix {

    static final Path SCRIPTS = Path.of(System.getProperty("project.root", "../..")).resolve("scripts/clients")
            .toAbsolutePath().normalize();

    static final List<String> GLUE = List.of("CreateRegistry", "CreateSchema", "GetSchema", "GetSchemaVersion");
    static final List<String> CHANNELS = List.of("CreateChannel", "DescribeChannel", "ListChannels", "UpdateChannel",
            "DeleteChannel");
    static final Map<String, String> WRONG = Map.of("wrong-secret", "InvalidSignatureException",
            "unknown-key", "InvalidSignatureException", "changed-body", "InvalidSignatureException",
            "old-date", "InvalidSignatureException");

    final String endpoint;
    final String tamperEndpoint;
    final String region = Peers.REGION;
    final String account = Peers.ACCOUNT;
    final String key = Peers.KEY;
    final String secret = Peers.SECRET;
    final Path schemaFile;
    final Path channelFile;
    private final Path workDir;
    private final Map<String, String> outcomes = new LinkedHashMap<>();

    private ClientMatrix(String endpoint, String tamperEndpoint, Path workDir) throws IOException {
        this.endpoint = endpoint;
        this.tamperEndpoint = tamperEndpoint;
        this.workDir = workDir;
        this.schemaFile = Files.writeString(workDir.resolve("matrix-schema.json"), Events.SCHEMA);
        // CreateChannel's body; each client puts in its own names and schema. The stream need not exist: a channel
        // is CREATING (then FAILED) as long as the test needs it.
        this.channelFile = Files.writeString(workDir.resolve("matrix-channel.json"), """
                {"ChannelName": "@NAME@", "ServiceExecutionRoleARN": "arn:aws:iam::%2$s:role/delivery",
                 "StreamConfigurationList": [{"StreamARN": "arn:aws:kinesis:%1$s:%2$s:stream/@NAME@",
                   "RecordConfiguration": {"RecordFormatType": "JSON", "GSRSchemaARN": "@SCHEMA_ARN@"}}],
                 "S3TablesDestinationConfiguration": {"DataFreshnessInSeconds": 60,
                   "DeadLetterQueueS3Configuration": {"BucketARN": "arn:aws:s3:::mx-dlq", "ExpectedBucketOwner": "%2$s",
                     "ErrorOutputPrefix": "errors/"},
                   "S3TablesConfigurationList": [{"TableBucketARN": "arn:aws:s3tables:%1$s:%2$s:bucket/tables",
                     "Namespace": "matrix", "TableName": "@TABLE@", "CompressionType": "ZSTD",
                     "PartitionSpec": {"PartitionFields": [{"Transform": "TIME_HOUR", "SourceName": "event_time"}]}}]}}
                """.formatted(region, account));
    }

    /** Runs every client against {@code service} and asserts each call's outcome; returns the table it printed. */
    static String run(ServiceUnderTest service, Path workDir) throws Exception {
        try (TamperingProxy proxy = new TamperingProxy(service.url())) {
            ClientMatrix matrix = new ClientMatrix(service.url(), proxy.url(), workDir);
            new JavaSdkColumns(matrix).run();
            matrix.script("boto3", "/usr/bin/python3", SCRIPTS.resolve("matrix.py").toString());
            matrix.script("js", "node", SCRIPTS.resolve("matrix.mjs").toString());
            matrix.script("cli+curl", "bash", SCRIPTS.resolve("matrix.sh").toString());
            return matrix.check(service);
        }
    }

    void record(String client, String call, String outcome) {
        outcomes.put(client + " " + call, outcome);
    }

    private void script(String name, String... command) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        env.put("MATRIX_ENDPOINT", endpoint);
        env.put("MATRIX_TAMPER_ENDPOINT", tamperEndpoint);
        env.put("MATRIX_REGION", region);
        env.put("MATRIX_KEY", key);
        env.put("MATRIX_SECRET", secret);
        env.put("MATRIX_SCHEMA", schemaFile.toString());
        env.put("MATRIX_CHANNEL", channelFile.toString());
        env.put("MATRIX_JS_MODULES", SCRIPTS.resolve("../../.peers/js-clients/node_modules").normalize().toString());
        env.put("HOME", workDir.toString()); // no profile or config of the machine's user
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(180, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
        Files.writeString(workDir.resolve("matrix-" + name + ".log"), output);
        for (String line : output.split("\n")) {
            if (line.startsWith("RESULT ")) {
                String[] parts = line.split(" ", 4);
                record(parts[1], parts[2], parts.length > 3 ? parts[3] : "");
            }
        }
        if (output.lines().noneMatch(l -> l.startsWith("RESULT "))) {
            record(name, "run", "FAIL printed no result (a client missing? run scripts/clients/install.sh): "
                    + output.substring(0, Math.min(output.length(), 2000)));
        }
    }

    /** The expected outcome of every call of every client, against what each reported. */
    private String check(ServiceUnderTest service) throws IOException {
        Map<String, String> expected = new LinkedHashMap<>();
        for (String client : List.of("java", "java-async", "boto3", "js", "cli", "curl")) {
            boolean channels = !client.equals("cli"); // the CLI of Debian predates the channel commands
            boolean glue = !client.equals("java-async"); // the Java SDK's Glue client is its sync one
            if (glue) {
                GLUE.forEach(call -> expected.put(client + " " + call, "ok"));
                WRONG.forEach((call, error) -> expected.put(client + " glue-" + call, error));
            }
            if (channels) {
                CHANNELS.forEach(call -> expected.put(client + " " + call, "ok"));
                WRONG.forEach((call, error) -> expected.put(client + " " + call, error));
            }
        }
        expected.put("js transport", "NodeHttp2Handler"); // the JavaScript SDK's Kinesis client on HTTP/2
        StringBuilder table = new StringBuilder();
        expected.keySet().forEach(call -> table.append(String.format("%-32s %s%n", call, outcomes.get(call))));
        outcomes.forEach((call, outcome) -> {
            if (!expected.containsKey(call)) {
                table.append(String.format("%-32s %s (not expected)%n", call, outcome));
            }
        });
        System.out.print("client matrix against " + endpoint + ":\n" + table);
        List<String> wrong = new ArrayList<>();
        expected.forEach((call, outcome) -> {
            if (!outcome.equals(outcomes.get(call))) {
                wrong.add(call + ": expected " + outcome + ", got " + outcomes.get(call));
            }
        });
        assertTrue(wrong.isEmpty(), String.join("\n", wrong) + "\n" + service.tail());
        assertEquals(expected.keySet(), outcomes.keySet(), "every client made exactly the matrix's calls");
        return table.toString();
    }
}
