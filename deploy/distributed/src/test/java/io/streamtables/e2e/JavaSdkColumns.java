package io.streamtables.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.auth.SigningAt;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.http.Protocol;
import software.amazon.awssdk.http.async.AsyncExecuteRequest;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.http.async.SdkHttpContentPublisher;
import software.amazon.awssdk.http.nio.netty.NettyNioAsyncHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.Compatibility;
import software.amazon.awssdk.services.glue.model.DataFormat;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClientBuilder;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ChannelDescription;
import software.amazon.awssdk.services.kinesis.model.CreateChannelRequest;

/**
 * The client matrix's Java columns: the AWS SDK for Java v2's Kinesis clients, sync (URL connection, HTTP/1.1) and
 * async (Netty, HTTP/2 as the Kinesis async client defaults to, h2c on http://), and its Glue client; each call's
 * outcome reported as the scripts report theirs.
 */
final class JavaSdkColumns {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final ClientMatrix matrix;
    private final URI endpoint;

    JavaSdkColumns(ClientMatrix matrix) {
        this.matrix = matrix;
        this.endpoint = URI.create(matrix.endpoint);
    }

    /** Outcome of a call: {@code ok} when {@code check} holds for its answer, else its error code or failure. */
    private <T> T expect(String client, String call, CallAnswer<T> run, Function<T, Boolean> check, String error) {
        T answer;
        try {
            answer = run.call();
        } catch (AwsServiceException e) {
            String code = e.awsErrorDetails().errorCode();
            matrix.record(client, call, code.equals(error) ? code : "FAIL " + code + ": " + e.getMessage());
            return null;
        } catch (Exception e) {
            matrix.record(client, call, "FAIL " + e);
            return null;
        }
        matrix.record(client, call, error != null ? "FAIL answered where " + error + " was expected"
                : Boolean.TRUE.equals(check.apply(answer)) ? "ok" : "FAIL the answer fails its check: " + answer);
        return answer;
    }

    private void refused(String client, String call, CallAnswer<?> run, String error) {
        expect(client, call, run, a -> false, error);
    }

    interface CallAnswer<T> {
        T call() throws Exception;
    }

    void run() throws Exception {
        // the SDK's own defaults: this module's tests speak JSON to kinesis-local (aws.cborEnabled=false), users CBOR
        String cbor = System.clearProperty("aws.cborEnabled");
        try {
            columns();
        } finally {
            if (cbor != null) {
                System.setProperty("aws.cborEnabled", cbor);
            }
        }
    }

    private void columns() throws Exception {
        String schemaArn = glue("java");
        channels("java", schemaArn);
        asyncChannels(schemaArn);
    }

    private static Optional<SigningAt> clockOf(Clock clock) {
        return Optional.ofNullable(clock).map(SigningAt::new);
    }

    private StaticCredentialsProvider keys(String key, String secret) {
        return StaticCredentialsProvider.create(AwsBasicCredentials.create(key, secret));
    }

    /** Glue: a registry and a schema created and read back, then the wrong signatures. */
    private String glue(String client) throws Exception {
        String registry = "mx-" + client + "-" + UUID.randomUUID().toString().substring(0, 8);
        String definition = java.nio.file.Files.readString(matrix.schemaFile);
        try (GlueClient glue = glueClient(matrix.key, matrix.secret, null, matrix.endpoint)) {
            expect(client, "CreateRegistry", () -> glue.createRegistry(r -> r.registryName(registry)),
                    a -> a.registryName().equals(registry), null);
            var created = expect(client, "CreateSchema", () -> glue.createSchema(r -> r
                    .registryId(id -> id.registryName(registry)).schemaName("events").dataFormat(DataFormat.JSON)
                    .compatibility(Compatibility.NONE).schemaDefinition(definition)), a -> true, null);
            String schemaArn = created == null ? "missing" : created.schemaArn();
            expect(client, "GetSchema", () -> glue.getSchema(r -> r.schemaId(id -> id.schemaArn(schemaArn))),
                    a -> a.schemaName().equals("events"), null);
            expect(client, "GetSchemaVersion", () -> glue.getSchemaVersion(r -> r
                            .schemaId(id -> id.schemaArn(schemaArn)).schemaVersionNumber(v -> v.latestVersion(true))),
                    a -> sameJson(a.schemaDefinition(), definition), null);
            try (GlueClient wrongSecret = glueClient(matrix.key, "guessed", null, matrix.endpoint);
                    GlueClient unknownKey = glueClient("AKIAUNKNOWN", matrix.secret, null, matrix.endpoint);
                    GlueClient tampering = glueClient(matrix.key, matrix.secret, null, matrix.tamperEndpoint);
                    GlueClient stale = glueClient(matrix.key, matrix.secret, old(), matrix.endpoint)) {
                refused(client, "glue-wrong-secret", () -> wrongSecret.listRegistries(r -> { }),
                        "InvalidSignatureException");
                refused(client, "glue-unknown-key", () -> unknownKey.listRegistries(r -> { }),
                        "InvalidSignatureException");
                refused(client, "glue-changed-body", () -> tampering.getRegistry(r -> r
                        .registryId(id -> id.registryName(registry))), "InvalidSignatureException");
                refused(client, "glue-old-date", () -> stale.listRegistries(r -> { }), "InvalidSignatureException");
            }
            return schemaArn;
        }
    }

    private GlueClient glueClient(String key, String secret, Clock clock, String url) {
        return GlueClient.builder().endpointOverride(URI.create(url)).region(Region.of(matrix.region))
                .credentialsProvider(keys(key, secret)).httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
                .applyMutation(b -> clockOf(clock).ifPresent(b::putAuthScheme)).build();
    }

    private static Clock old() {
        return Clock.offset(Clock.systemUTC(), Duration.ofMinutes(-20));
    }

    private KinesisClient kinesis(String key, String secret, Clock clock, String url) {
        return KinesisClient.builder().endpointOverride(URI.create(url)).region(Region.of(matrix.region))
                .credentialsProvider(keys(key, secret)).httpClient(UrlConnectionHttpClient.create())
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
                .applyMutation(b -> clockOf(clock).ifPresent(b::putAuthScheme)).build();
    }

    /** The channel calls through the sync client; the changed body through the tampering proxy. */
    private void channels(String client, String schemaArn) {
        String name = "mx-" + client + "-" + UUID.randomUUID().toString().substring(0, 8);
        try (KinesisClient kinesis = kinesis(matrix.key, matrix.secret, null, matrix.endpoint)) {
            ChannelDescription created = expect(client, "CreateChannel",
                    () -> kinesis.createChannel(createChannel(name, schemaArn)).channelDescription(),
                    d -> d.channelName().equals(name), null);
            String arn = created == null ? "missing" : created.channelARN();
            expect(client, "DescribeChannel", () -> kinesis.describeChannel(r -> r.channelARN(arn)).channelDescription(),
                    d -> d.channelARN().equals(arn), null);
            expect(client, "ListChannels", () -> kinesis.listChannels(r -> { }).channelSummaries(),
                    list -> list.stream().anyMatch(c -> c.channelARN().equals(arn)), null);
            expect(client, "UpdateChannel", () -> kinesis.updateChannel(r -> r.channelARN(arn)
                            .s3TablesDestinationConfiguration(d -> d.dataFreshnessInSeconds(120))).channelDescription(),
                    d -> d.s3TablesDestinationConfiguration().dataFreshnessInSeconds() == 120, null);
            expect(client, "DeleteChannel", () -> kinesis.deleteChannel(r -> r.channelARN(arn)), a -> true, null);
        }
        try (KinesisClient wrongSecret = kinesis(matrix.key, "guessed", null, matrix.endpoint);
                KinesisClient unknownKey = kinesis("AKIAUNKNOWN", matrix.secret, null, matrix.endpoint);
                KinesisClient stale = kinesis(matrix.key, matrix.secret, old(), matrix.endpoint);
                KinesisClient tampering = kinesis(matrix.key, matrix.secret, null, matrix.tamperEndpoint)) {
            refused(client, "wrong-secret", () -> wrongSecret.listChannels(r -> { }), "InvalidSignatureException");
            refused(client, "unknown-key", () -> unknownKey.listChannels(r -> { }), "InvalidSignatureException");
            refused(client, "changed-body", () -> tampering.describeChannel(r -> r.channelARN(
                    "arn:aws:kinesis:" + matrix.region + ":" + matrix.account + ":channel/" + name)),
                    "InvalidSignatureException");
            refused(client, "old-date", () -> stale.listChannels(r -> { }), "InvalidSignatureException");
        }
    }

    /** The channel calls through the async client on HTTP/2; the changed body by the HTTP client under it. */
    private void asyncChannels(String schemaArn) {
        String client = "java-async";
        String name = "mx-java-async-" + UUID.randomUUID().toString().substring(0, 8);
        try (KinesisAsyncClient kinesis = asyncKinesis(matrix.key, matrix.secret, null, false)) {
            ChannelDescription created = expect(client, "CreateChannel", () -> join(kinesis.createChannel(
                    createChannel(name, schemaArn))).channelDescription(), d -> d.channelName().equals(name), null);
            String arn = created == null ? "missing" : created.channelARN();
            expect(client, "DescribeChannel", () -> join(kinesis.describeChannel(r -> r.channelARN(arn)))
                    .channelDescription(), d -> d.channelARN().equals(arn), null);
            expect(client, "ListChannels", () -> join(kinesis.listChannels(r -> { })).channelSummaries(),
                    list -> list.stream().anyMatch(c -> c.channelARN().equals(arn)), null);
            expect(client, "UpdateChannel", () -> join(kinesis.updateChannel(r -> r.channelARN(arn)
                            .s3TablesDestinationConfiguration(d -> d.dataFreshnessInSeconds(120)))).channelDescription(),
                    d -> d.s3TablesDestinationConfiguration().dataFreshnessInSeconds() == 120, null);
            expect(client, "DeleteChannel", () -> join(kinesis.deleteChannel(r -> r.channelARN(arn))), a -> true, null);
            try (KinesisAsyncClient wrongSecret = asyncKinesis(matrix.key, "guessed", null, false);
                    KinesisAsyncClient unknownKey = asyncKinesis("AKIAUNKNOWN", matrix.secret, null, false);
                    KinesisAsyncClient stale = asyncKinesis(matrix.key, matrix.secret, old(), false);
                    KinesisAsyncClient tampering = asyncKinesis(matrix.key, matrix.secret, null, true)) {
                refused(client, "wrong-secret", () -> join(wrongSecret.listChannels(r -> { })),
                        "InvalidSignatureException");
                refused(client, "unknown-key", () -> join(unknownKey.listChannels(r -> { })),
                        "InvalidSignatureException");
                refused(client, "changed-body", () -> join(tampering.describeChannel(r -> r.channelARN(arn))),
                        "InvalidSignatureException");
                refused(client, "old-date", () -> join(stale.listChannels(r -> { })), "InvalidSignatureException");
            }
        }
    }

    private KinesisAsyncClient asyncKinesis(String key, String secret, Clock clock, boolean tampering) {
        SdkAsyncHttpClient http = NettyNioAsyncHttpClient.builder().protocol(Protocol.HTTP2).build();
        KinesisAsyncClientBuilder builder = KinesisAsyncClient.builder().endpointOverride(endpoint)
                .region(Region.of(matrix.region)).credentialsProvider(keys(key, secret))
                .httpClient(tampering ? new ChangingBody(http) : http)
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()));
        clockOf(clock).ifPresent(builder::putAuthScheme);
        return builder.build();
    }

    private static <T> T join(CompletableFuture<T> future) {
        try {
            return future.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }

    /** The matrix's CreateChannel body, member by member into the SDK's request. */
    private CreateChannelRequest createChannel(String name, String schemaArn) throws java.io.IOException {
        JsonNode c = JSON.readTree(java.nio.file.Files.readString(matrix.channelFile).replace("@NAME@", name)
                .replace("@TABLE@", name.replace('-', '_')).replace("@SCHEMA_ARN@", schemaArn));
        JsonNode stream = c.get("StreamConfigurationList").get(0);
        JsonNode dest = c.get("S3TablesDestinationConfiguration");
        JsonNode dlq = dest.get("DeadLetterQueueS3Configuration");
        JsonNode table = dest.get("S3TablesConfigurationList").get(0);
        JsonNode partition = table.get("PartitionSpec").get("PartitionFields").get(0);
        return CreateChannelRequest.builder().channelName(c.get("ChannelName").asText())
                .serviceExecutionRoleARN(c.get("ServiceExecutionRoleARN").asText())
                .streamConfigurationList(s -> s.streamARN(stream.get("StreamARN").asText()).recordConfiguration(r -> r
                        .recordFormatType(stream.at("/RecordConfiguration/RecordFormatType").asText())
                        .gsrSchemaARN(stream.at("/RecordConfiguration/GSRSchemaARN").asText())))
                .s3TablesDestinationConfiguration(d -> d.dataFreshnessInSeconds(dest.get("DataFreshnessInSeconds").asInt())
                        .deadLetterQueueS3Configuration(q -> q.bucketARN(dlq.get("BucketARN").asText())
                                .expectedBucketOwner(dlq.get("ExpectedBucketOwner").asText())
                                .errorOutputPrefix(dlq.get("ErrorOutputPrefix").asText()))
                        .s3TablesConfigurationList(t -> t.tableBucketARN(table.get("TableBucketARN").asText())
                                .namespace(table.get("Namespace").asText()).tableName(table.get("TableName").asText())
                                .compressionType(table.get("CompressionType").asText())
                                .partitionSpec(p -> p.partitionFields(f -> f.transform(partition.get("Transform").asText())
                                        .sourceName(partition.get("SourceName").asText())))))
                .build();
    }

    private static boolean sameJson(String a, String b) {
        try {
            return JSON.readTree(a).equals(JSON.readTree(b));
        } catch (java.io.IOException e) {
            return false;
        }
    }

    /** The async HTTP client under the SDK, changing {@code mx-} to {@code MX-} in the body it has just signed. */
    record ChangingBody(SdkAsyncHttpClient delegate) implements SdkAsyncHttpClient {

        @Override
        public CompletableFuture<Void> execute(AsyncExecuteRequest request) {
            SdkHttpContentPublisher signed = request.requestContentPublisher();
            SdkHttpContentPublisher changed = new SdkHttpContentPublisher() {
                @Override
                public Optional<Long> contentLength() {
                    return signed.contentLength();
                }

                @Override
                public void subscribe(Subscriber<? super ByteBuffer> s) {
                    signed.subscribe(new Subscriber<ByteBuffer>() {
                        @Override
                        public void onSubscribe(Subscription subscription) {
                            s.onSubscribe(subscription);
                        }

                        @Override
                        public void onNext(ByteBuffer buffer) {
                            byte[] bytes = new byte[buffer.remaining()];
                            buffer.get(bytes);
                            s.onNext(ByteBuffer.wrap(new String(bytes, StandardCharsets.ISO_8859_1)
                                    .replace("mx-", "MX-").getBytes(StandardCharsets.ISO_8859_1)));
                        }

                        @Override
                        public void onError(Throwable t) {
                            s.onError(t);
                        }

                        @Override
                        public void onComplete() {
                            s.onComplete();
                        }
                    });
                }
            };
            return delegate.execute(AsyncExecuteRequest.builder().request(request.request())
                    .requestContentPublisher(changed).responseHandler(request.responseHandler())
                    .fullDuplex(request.fullDuplex()).build());
        }

        @Override
        public void close() {
            delegate.close();
        }
    }
}
