package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.DataFormat;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ResourceInUseException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The API over HTTPS with plain HTTP switched off: a CA and a server certificate made with the JDK's
 * keytool, the certificate served through Quarkus's TLS registry, and the official SDK clients trusting the CA.
 * The stages' own schema lookups go over HTTPS too, trusting the CA through the JVM's trust store, and a channel
 * goes ACTIVE. A client that does not trust the CA is refused, and the plain HTTP port does not answer.
 */
class TlsIT {

    static final String PASSWORD = "changeit-" + Long.toString(System.nanoTime(), 36);

    @Test
    void theApiServesHttpsOnlyWithAConfiguredCertificate() throws Exception {
        Path dir = AllInOneProcess.tempDir("tls");
        Path serverStore = dir.resolve("server.p12");
        Path trustStore = dir.resolve("trust.p12");
        makeCertificates(dir, serverStore, trustStore);
        int httpsPort;
        try (ServerSocket s = new ServerSocket(0)) {
            httpsPort = s.getLocalPort();
        }
        String https = "https://127.0.0.1:" + httpsPort;
        String suffix = Long.toString(System.currentTimeMillis(), 36);
        String stream = "tls-" + suffix;
        String warehouse = "wh-tls-" + suffix;
        Path channels = Files.writeString(dir.resolve("channels.json"), "[]");
        Map<String, String> config = new java.util.LinkedHashMap<>(Peers.appConfig(dir, channels,
                Peers.catalog("jdbc:sqlite:" + dir.resolve("catalog.db"), warehouse)));
        // a named TLS configuration for the API port: the management port (health, metrics) stays as it was
        config.put("quarkus.tls.api.key-store.p12.path", serverStore.toString());
        config.put("quarkus.tls.api.key-store.p12.password", PASSWORD);
        config.put("quarkus.http.tls-configuration-name", "api");
        config.put("quarkus.http.ssl-port", Integer.toString(httpsPort));
        config.put("quarkus.http.insecure-requests", "disabled");
        // the stages' lookups: to the HTTPS port, trusting the CA as any JVM client would
        config.put("delivery.schema-registry.endpoint-override", https);
        config.put("javax.net.ssl.trustStore", trustStore.toString());
        config.put("javax.net.ssl.trustStorePassword", PASSWORD);
        config.put("javax.net.ssl.trustStoreType", "PKCS12");
        try (KinesisClient streams = Peers.kinesis(); S3Client s3 = Peers.s3()) {
            try {
                streams.createStream(r -> r.streamName(stream).shardCount(1));
            } catch (ResourceInUseException retried) {
                // the SDK's retry of our own call: the name is unique
            }
            s3.createBucket(r -> r.bucket(warehouse));
            s3.createBucket(r -> r.bucket("dlq-" + warehouse));
            try (AllInOneProcess app = new AllInOneProcess(dir, config).start();
                    KinesisClient kinesis = KinesisClient.builder().endpointOverride(URI.create(https))
                            .region(Region.of(Peers.REGION)).credentialsProvider(GsrEndToEndIT.CREDENTIALS)
                            .httpClientBuilder(trusting(trustStore)).build();
                    GlueClient glue = GlueClient.builder().endpointOverride(URI.create(https))
                            .region(Region.of(Peers.REGION)).credentialsProvider(GsrEndToEndIT.CREDENTIALS)
                            .httpClientBuilder(trusting(trustStore)).build()) {
                glue.createRegistry(r -> r.registryName("tls-" + suffix));
                glue.createSchema(r -> r.registryId(id -> id.registryName("tls-" + suffix)).schemaName("events")
                        .dataFormat(DataFormat.JSON).schemaDefinition("{\"type\": \"object\", \"properties\": "
                                + "{\"id\": {\"type\": \"string\"}, \"ts\": {\"type\": \"string\", \"format\": "
                                + "\"date-time\"}}, \"required\": [\"id\", \"ts\"]}"));
                String arn = kinesis.createChannel(r -> r.channelName("tls-" + suffix)
                        .streamConfigurationList(c -> c.streamARN("arn:aws:kinesis:" + Peers.REGION + ":"
                                + Peers.ACCOUNT + ":stream/" + stream).recordConfiguration(rc -> rc
                                .recordFormatType("JSON").gsrSchemaARN("arn:aws:glue:" + Peers.REGION + ":"
                                        + Peers.ACCOUNT + ":schema/tls-" + suffix + "/events")))
                        .s3TablesDestinationConfiguration(d -> d.dataFreshnessInSeconds(1)
                                .deadLetterQueueS3Configuration(q -> q.bucketARN("arn:aws:s3:::dlq-" + warehouse)
                                        .expectedBucketOwner(Peers.ACCOUNT))
                                .s3TablesConfigurationList(t -> t.tableBucketARN("arn:aws:s3tables:" + Peers.REGION
                                        + ":" + Peers.ACCOUNT + ":bucket/b").namespace("tls").tableName("events")
                                        .compressionType("ZSTD").partitionSpec(p -> p.partitionFields(f -> f
                                                .transform("TIME_HOUR").sourceName("ts"))))))
                        .channelDescription().channelARN();
                assertEquals("ACTIVE", awaitSettled(kinesis, arn), "the CREATING checks read the schema over HTTPS");

                try (KinesisClient stranger = KinesisClient.builder().endpointOverride(URI.create(https))
                        .region(Region.of(Peers.REGION)).credentialsProvider(GsrEndToEndIT.CREDENTIALS)
                        .httpClientBuilder(UrlConnectionHttpClient.builder()).build()) {
                    SdkClientException e = assertThrows(SdkClientException.class, () -> stranger.listChannels(r -> { }));
                    assertTrue(causedBy(e, SSLException.class), "a client without the CA: " + e);
                }
                HttpURLConnection plain = (HttpURLConnection) URI.create(app.url() + "/").toURL().openConnection();
                plain.setConnectTimeout(2_000);
                assertThrows(IOException.class, plain::getResponseCode, "plain HTTP is off");
            } finally {
                streams.deleteStream(r -> r.streamName(stream));
            }
        }
    }

    /** keytool, the JDK's own: a CA, a server key, and the server certificate the CA signs for 127.0.0.1. */
    private static void makeCertificates(Path dir, Path serverStore, Path trustStore) throws Exception {
        Path ca = dir.resolve("ca.p12");
        keytool(dir, "-genkeypair", "-alias", "ca", "-keyalg", "EC", "-dname", "CN=streamtables test CA",
                "-ext", "bc:c", "-validity", "2", "-keystore", ca.toString());
        keytool(dir, "-exportcert", "-rfc", "-alias", "ca", "-keystore", ca.toString(), "-file", "ca.pem");
        keytool(dir, "-genkeypair", "-alias", "server", "-keyalg", "EC", "-dname", "CN=127.0.0.1", "-validity", "2",
                "-keystore", serverStore.toString());
        keytool(dir, "-certreq", "-alias", "server", "-keystore", serverStore.toString(), "-file", "server.csr");
        keytool(dir, "-gencert", "-alias", "ca", "-keystore", ca.toString(), "-infile", "server.csr", "-outfile",
                "server.pem", "-rfc", "-validity", "2", "-ext", "san=ip:127.0.0.1,dns:localhost");
        keytool(dir, "-importcert", "-noprompt", "-alias", "ca", "-keystore", serverStore.toString(), "-file", "ca.pem");
        keytool(dir, "-importcert", "-alias", "server", "-keystore", serverStore.toString(), "-file", "server.pem");
        keytool(dir, "-importcert", "-noprompt", "-alias", "ca", "-keystore", trustStore.toString(), "-file", "ca.pem");
    }

    private static void keytool(Path dir, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool")
                .toString()));
        command.addAll(List.of(args));
        command.addAll(List.of("-storetype", "PKCS12", "-storepass", PASSWORD));
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, "keytool " + command + ":\n" + out);
    }

    private static UrlConnectionHttpClient.Builder trusting(Path trustStore) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(trustStore)) {
            store.load(in, PASSWORD.toCharArray());
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(store);
        return UrlConnectionHttpClient.builder().tlsTrustManagersProvider(trust::getTrustManagers);
    }

    private static String awaitSettled(KinesisClient kinesis, String arn) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String status = "";
        while (System.nanoTime() < deadline) {
            status = kinesis.describeChannel(r -> r.channelARN(arn)).channelDescription().channelStatusAsString();
            if (!status.equals("CREATING")) {
                return status;
            }
            Thread.sleep(500);
        }
        return status;
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }
}
