package io.streamtables.e2e;

import java.net.URI;
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
                .httpClientBuilder(UrlConnectionHttpClient.builder())
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
