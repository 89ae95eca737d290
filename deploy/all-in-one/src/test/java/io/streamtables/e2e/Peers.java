package io.streamtables.e2e;

import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.s3.S3Client;

/** The real peers started by scripts/peers.sh (kinesis-local, S3Proxy) and the optional PostgreSQL server. */
final class Peers {

    static final String REGION = "us-east-1";
    static final String ACCOUNT = "000000000000";
    static final String KEY = "test";
    static final String SECRET = "test";
    static final String KINESIS = env("KINESIS_ENDPOINT", "http://127.0.0.1:4568");
    static final String S3 = env("S3_ENDPOINT", "http://127.0.0.1:4570");
    static final String POSTGRES = env("POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    private Peers() {
    }

    static KinesisClient kinesis() {
        return KinesisClient.builder()
                // a loaded kinesis-local can take more than the default 30 s for 500 records; a PutRecords the SDK
                // retries after a read timeout puts them twice (the table then rightly holds duplicates)
                .httpClientBuilder(UrlConnectionHttpClient.builder().socketTimeout(java.time.Duration.ofMinutes(3)))
                .endpointOverride(URI.create(KINESIS))
                .region(Region.of(REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(KEY, SECRET)))
                .build();
    }

    static S3Client s3() {
        return S3Client.builder()
                .httpClientBuilder(UrlConnectionHttpClient.builder())
                .endpointOverride(URI.create(S3))
                .forcePathStyle(true)
                .region(Region.of(REGION))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(KEY, SECRET)))
                .build();
    }

    /** An Iceberg JDBC catalog (SQLite file or PostgreSQL URL) with the warehouse on S3Proxy through S3FileIO. */
    static Map<String, String> catalog(String jdbcUri, String warehouseBucket) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("type", "jdbc");
        p.put("uri", jdbcUri);
        p.put("jdbc.schema-version", "V1");
        p.put("warehouse", "s3://" + warehouseBucket + "/warehouse");
        p.put("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
        p.put("http-client.type", "urlconnection");
        p.put("s3.endpoint", S3);
        p.put("s3.path-style-access", "true");
        p.put("s3.access-key-id", KEY);
        p.put("s3.secret-access-key", SECRET);
        p.put("client.region", REGION);
        return p;
    }

    /** The all-in-one's configuration against these peers: the operator contract of the README. */
    static Map<String, String> appConfig(Path workDir, Path channelsFile, Map<String, String> catalog) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("delivery.channels-file", channelsFile.toString());
        c.put("delivery.schemas-dir", workDir.resolve("schemas").toString());
        c.put("delivery.database-url", "jdbc:sqlite:" + workDir.resolve("delivery.db"));
        c.put("delivery.min-data-freshness-seconds", "1");
        c.put("delivery.kinesis.endpoint-override", KINESIS);
        c.put("delivery.kinesis.max-records-per-call", "2500"); // kinesis-local takes 4 s for 10 000
        c.put("delivery.kinesis.aws.region", REGION);
        c.put("delivery.kinesis.aws.credentials.type", "static");
        c.put("delivery.kinesis.aws.credentials.static-provider.access-key-id", KEY);
        c.put("delivery.kinesis.aws.credentials.static-provider.secret-access-key", SECRET);
        c.put("quarkus.s3.endpoint-override", S3);
        c.put("quarkus.s3.path-style-access", "true");
        c.put("quarkus.s3.aws.region", REGION);
        c.put("quarkus.s3.aws.credentials.type", "static");
        c.put("quarkus.s3.aws.credentials.static-provider.access-key-id", KEY);
        c.put("quarkus.s3.aws.credentials.static-provider.secret-access-key", SECRET);
        catalog.forEach((k, v) -> c.put("delivery.catalog." + k, v));
        return c;
    }

    static boolean postgresAnswers() {
        try (var c = java.sql.DriverManager.getConnection(POSTGRES)) {
            return c.isValid(2);
        } catch (java.sql.SQLException e) {
            return false;
        }
    }

    private static String env(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : v;
    }
}
