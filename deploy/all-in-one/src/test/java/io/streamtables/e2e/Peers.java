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
    /** Iceberg's own REST catalog server (scripts/peers.sh "rest"), its warehouse in this bucket on S3Proxy. */
    static final String REST_CATALOG = env("REST_CATALOG_ENDPOINT", "http://127.0.0.1:8181");
    static final String REST_WAREHOUSE_BUCKET = "rest-warehouse";
    static final String POSTGRES = env("POSTGRES_URL", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    private Peers() {
    }

    /**
     * The producer's client. A loaded machine can slow kinesis-local past the SDK's 30 s socket timeout; the SDK
     * then retries a PutRecords that may have landed, and the stream holds a record twice, which the tests
     * would count as a duplicate delivery. A long timeout keeps the client from retrying what it sent.
     */
    static KinesisClient kinesis() {
        return KinesisClient.builder()
                .httpClientBuilder(UrlConnectionHttpClient.builder().socketTimeout(java.time.Duration.ofMinutes(5)))
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

    /**
     * Iceberg's REST catalog at {@code uri}, its files on S3Proxy through S3FileIO (the server writes table
     * metadata, the client its data files and manifests). Creates the server's warehouse bucket when missing.
     */
    static Map<String, String> restCatalog(String uri) {
        try (S3Client s3 = s3()) {
            if (s3.listBuckets().buckets().stream().noneMatch(b -> b.name().equals(REST_WAREHOUSE_BUCKET))) {
                s3.createBucket(r -> r.bucket(REST_WAREHOUSE_BUCKET));
            }
        }
        Map<String, String> p = new LinkedHashMap<>(catalog(null, REST_WAREHOUSE_BUCKET));
        p.remove("jdbc.schema-version");
        p.remove("warehouse"); // the server's
        p.put("type", "rest");
        p.put("uri", uri);
        return p;
    }

    /**
     * A table bucket's entry naming the REST catalog as S3 Tables is named (type s3tables), its requests signed
     * with SigV4 for the service s3tables with the test's keys.
     */
    static Map<String, String> s3TablesEntry(String uri) {
        Map<String, String> p = new LinkedHashMap<>(restCatalog(uri));
        p.put("type", "s3tables");
        p.put("rest.access-key-id", KEY);
        p.put("rest.secret-access-key", SECRET);
        p.put("rest.signing-region", REGION);
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
        c.put("delivery.kms.describe-keys", "false"); // no KMS answers here
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
        // the tests that count snapshots would count the maintenance's too: MaintenanceIT and CrashIT turn it on
        c.put("delivery.maintenance.enabled", "false");
        // the API's one principal: the tests' clients sign with its keys, the stages' schema lookups too
        c.put("delivery.auth.principals.service.access-key-id", KEY);
        c.put("delivery.auth.principals.service.secret-access-key", SECRET);
        c.put("delivery.auth.principals.service.account-id", ACCOUNT);
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
