package io.streamtables.bench;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelDefinition;
import io.streamtables.config.DeliveryConfig;
import io.streamtables.schema.ChannelSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.iceberg.CatalogUtil;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import org.apache.iceberg.catalog.Catalog;

/** The channel, schema and catalog every in-process scenario uses (same settings as the all-in-one's). */
public final class Setup {

    public static final String REGION = "us-east-1";
    public static final String ACCOUNT = "000000000000";
    /** delivery.records.max-bytes as the services default it: Kinesis' 10 MiB. */
    public static final int MAX_RECORD_BYTES = 10 * 1024 * 1024;
    public static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    private static final Logger QUIET = quiet();

    private Setup() {
    }

    private static Logger quiet() {
        Logger l = Logger.getLogger("org.apache");
        l.setLevel(Level.WARNING);
        return l;
    }

    public static final DeliveryConfig CONFIG = config(null);

    public static DeliveryConfig config(String channelsFile) {
        return new DeliveryConfig() {
            @Override
            public String region() {
                return REGION;
            }

            @Override
            public String accountId() {
                return ACCOUNT;
            }

            @Override
            public int minDataFreshnessSeconds() {
                return 1;
            }

            @Override
            public Optional<String> channelsFile() {
                return Optional.ofNullable(channelsFile);
            }

            @Override
            public String schemasDir() {
                return "schemas";
            }

            @Override
            public Map<String, String> catalog() {
                return Map.of();
            }

            @Override
            public Map<String, Map<String, String>> tableBuckets() {
                return Map.of();
            }

            @Override
            public String databaseUrl() {
                return "jdbc:sqlite::memory:";
            }

            @Override
            public Optional<String> databaseUser() {
                return Optional.empty();
            }

            @Override
            public Optional<String> databasePassword() {
                return Optional.empty();
            }
        };
    }

    public static String streamArn(String stream) {
        return "arn:aws:kinesis:" + REGION + ":" + ACCOUNT + ":stream/" + stream;
    }

    public static ChannelDefinition definition(String name, String stream, String namespace, String table,
            int freshnessSeconds, String dlqBucket) {
        return new ChannelDefinition(name, "arn:aws:iam::" + ACCOUNT + ":role/delivery",
                List.of(new ChannelDefinition.StreamConfiguration(streamArn(stream),
                        new ChannelDefinition.RecordConfiguration("JSON",
                                "arn:aws:glue:" + REGION + ":" + ACCOUNT + ":schema/registry/events"))),
                new ChannelDefinition.S3TablesDestinationConfiguration(freshnessSeconds,
                        new ChannelDefinition.DeadLetterQueueConfiguration("arn:aws:s3:::" + dlqBucket, ACCOUNT,
                                "errors/"),
                        List.of(new ChannelDefinition.TableConfiguration(
                                "arn:aws:s3tables:" + REGION + ":" + ACCOUNT + ":bucket/tables", namespace, table,
                                "ZSTD", new ChannelDefinition.PartitionSpec(List.of(
                                        new ChannelDefinition.PartitionField("TIME_HOUR", Events.PARTITION_FIELD)))))),
                null, null, null);
    }

    /**
     * The same channel as a CreateChannel input, written by hand in the shape the end-to-end tests use, so that
     * it does not depend on how this build's {@code ChannelDefinition} serializes.
     */
    public static String channelJson(String name, String stream, String namespace, String table, int freshnessSeconds,
            String dlqBucket) {
        return """
                [{
                  "ChannelName": "%s",
                  "ServiceExecutionRoleArn": "arn:aws:iam::%s:role/delivery",
                  "StreamConfigurationList": [{
                    "StreamARN": "%s",
                    "RecordConfiguration": {
                      "RecordFormatType": "JSON",
                      "GSRSchemaARN": "arn:aws:glue:%s:%s:schema/registry/events"
                    }
                  }],
                  "S3TablesDestinationConfiguration": {
                    "DataFreshnessInSeconds": %d,
                    "DeadLetterQueueS3Configuration": {
                      "BucketARN": "arn:aws:s3:::%s",
                      "ExpectedBucketOwner": "%s",
                      "ErrorOutputPrefix": "errors/"
                    },
                    "S3TablesConfigurationList": [{
                      "TableBucketARN": "arn:aws:s3tables:%s:%s:bucket/tables",
                      "Namespace": "%s",
                      "TableName": "%s",
                      "CompressionType": "ZSTD",
                      "PartitionSpec": {"PartitionFields": [{"Transform": "TIME_HOUR", "SourceName": "%s"}]}
                    }]
                  }
                }]
                """.formatted(name, ACCOUNT, streamArn(stream), REGION, ACCOUNT, freshnessSeconds, dlqBucket, ACCOUNT,
                REGION, ACCOUNT, namespace, table, Events.PARTITION_FIELD);
    }

    /**
     * An instance of a service class built the way CDI would, from the given objects: each constructor
     * parameter is one of them (by type), or another class built the same way, or, for an interface, a stub
     * that is never called. The stage classes' constructors change as the project grows; this keeps the
     * harness building.
     */
    @SuppressWarnings("unchecked")
    public static <T> T wire(Class<T> type, Object... known) {
        for (Object k : known) {
            if (type.isInstance(k)) {
                return (T) k;
            }
        }
        if (type.isInterface()) {
            return (T) java.lang.reflect.Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                    (proxy, method, args) -> {
                        if (method.getName().equals("toString")) {
                            return "stub " + type.getSimpleName();
                        }
                        // a configuration interface: its documented default (@WithDefault), or empty
                        io.smallrye.config.WithDefault d = method.getAnnotation(io.smallrye.config.WithDefault.class);
                        if (d != null) {
                            return convert(d.value(), method.getReturnType());
                        }
                        if (method.getReturnType() == Optional.class) {
                            return Optional.empty();
                        }
                        if (method.isDefault()) {
                            return java.lang.reflect.InvocationHandler.invokeDefault(proxy, method, args);
                        }
                        throw new UnsupportedOperationException("not used by the benchmark: " + method);
                    });
        }
        java.lang.reflect.Constructor<?>[] constructors = type.getDeclaredConstructors();
        java.util.Arrays.sort(constructors, (a, b) -> Integer.compare(score(b, known), score(a, known)));
        java.lang.reflect.Constructor<?> c = constructors[0];
        Class<?>[] params = c.getParameterTypes();
        Object[] args = new Object[params.length];
        for (int i = 0; i < params.length; i++) {
            args[i] = params[i] == String.class || params[i].isPrimitive() ? null : wire(params[i], known);
        }
        try {
            c.setAccessible(true);
            return (T) c.newInstance(args);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot build " + type.getName() + ": " + e, e);
        }
    }

    private static Object convert(String value, Class<?> type) {
        if (type == boolean.class || type == Boolean.class) {
            return Boolean.parseBoolean(value);
        }
        if (type == int.class || type == Integer.class) {
            return Integer.parseInt(value);
        }
        if (type == long.class || type == Long.class) {
            return Long.parseLong(value);
        }
        return value;
    }

    private static int score(java.lang.reflect.Constructor<?> c, Object... known) {
        int score = 0;
        for (Class<?> p : c.getParameterTypes()) {
            if (p == String.class || p.isPrimitive()) {
                score -= 10;
            }
            for (Object k : known) {
                if (p.isInstance(k)) {
                    score += 2;
                }
            }
        }
        return score;
    }

    public static Channel channel(String table) {
        return Channel.of(definition("bench-" + table.replace('_', '-'), "bench-events", "bench", table, 1, "dlq-bench"),
                CONFIG);
    }

    public static JsonNode schemaJson() {
        try {
            return JSON.readTree(Events.SCHEMA);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static ChannelSchema schema() {
        return ChannelSchema.of(schemaJson(), Events.PARTITION_FIELD);
    }

    /** A JDBC catalog on SQLite and a local warehouse (LocalFileIO), as the all-in-one's defaults. */
    /** The official Kinesis client on kinesis-local or the channel API of a service, with the test credentials. */
    static KinesisClient kinesis(String endpoint, java.time.Duration socketTimeout) {
        return KinesisClient.builder()
                .httpClientBuilder(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.builder()
                        .socketTimeout(socketTimeout))
                .endpointOverride(java.net.URI.create(endpoint)).region(software.amazon.awssdk.regions.Region.of(REGION))
                .credentialsProvider(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                        software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create("test", "test")))
                .build();
    }

    /** Creates a stream and waits (up to 10 s) until it is ACTIVE. */
    static void createStream(KinesisClient kinesis, String stream, int shards) throws InterruptedException {
        kinesis.createStream(b -> b.streamName(stream).shardCount(shards));
        for (int i = 0; i < 100 && kinesis.describeStreamSummary(b -> b.streamName(stream)).streamDescriptionSummary()
                .streamStatus() != software.amazon.awssdk.services.kinesis.model.StreamStatus.ACTIVE; i++) {
            Thread.sleep(100);
        }
    }

    public static Catalog catalog(Path dir) {
        dir.toFile().mkdirs();
        return CatalogUtil.buildIcebergCatalog("delivery", Map.of(
                "type", "jdbc",
                "uri", "jdbc:sqlite:" + dir.resolve("catalog.db"),
                "warehouse", dir.resolve("warehouse").toString(),
                "io-impl", "io.streamtables.catalog.LocalFileIO",
                "jdbc.schema-version", "V1",
                "clients", "1"), null);
    }

    public static Map<String, String> catalogProperties(Path dir) {
        return Map.of(
                "type", "jdbc",
                "uri", "jdbc:sqlite:" + dir.resolve("catalog.db"),
                "warehouse", dir.resolve("warehouse").toString(),
                "io-impl", "io.streamtables.catalog.LocalFileIO",
                "jdbc.schema-version", "V1",
                "clients", "1");
    }
}
