package io.streamtables.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * Every AWS client the service builds bounds a call as a whole. The URL-connection client's own timeouts bound
 * connecting and each read: a peer that answers a byte a second never trips them (before, such a call held its
 * thread for as long as the peer went on).
 */
class AwsClientsTest {

    static KinesisConfig config(String endpoint) {
        return new SmallRyeConfigBuilder().withMapping(KinesisConfig.class)
                .withSources(new PropertiesConfigSource(Map.of("delivery.kinesis.endpoint-override", endpoint,
                        "delivery.kinesis.aws.credentials.type", "static",
                        "delivery.kinesis.aws.credentials.static-provider.access-key-id", "k",
                        "delivery.kinesis.aws.credentials.static-provider.secret-access-key", "s"), "test", 400))
                .build().getConfigMapping(KinesisConfig.class);
    }

    @Test
    void everyClientBoundsItsCallsUnlessItSetsItsOwn() {
        try (KinesisClient kinesis = AwsClients.build(KinesisClient.builder(), config("http://127.0.0.1:1"),
                "delivery.kinesis", "us-east-1")) {
            var bounds = kinesis.serviceClientConfiguration().overrideConfiguration();
            assertEquals(Optional.of(AwsClients.API_CALL_TIMEOUT), bounds.apiCallTimeout());
            assertEquals(Optional.of(AwsClients.API_CALL_ATTEMPT_TIMEOUT), bounds.apiCallAttemptTimeout());
        }
        try (KinesisClient own = AwsClients.build(KinesisClient.builder().overrideConfiguration(o -> o
                .apiCallTimeout(Duration.ofSeconds(7))), config("http://127.0.0.1:1"), "delivery.kinesis",
                "us-east-1")) {
            assertEquals(Optional.of(Duration.ofSeconds(7)),
                    own.serviceClientConfiguration().overrideConfiguration().apiCallTimeout());
        }
    }

    @Test
    void aPeerThatTricklesItsAnswerIsCutAtTheCallsBound() throws Exception {
        try (ServerSocket server = new ServerSocket(0)) {
            CountDownLatch peerCut = new CountDownLatch(1);
            Thread trickle = new Thread(() -> trickle(server, peerCut));
            trickle.setDaemon(true);
            trickle.start();
            try (KinesisClient kinesis = AwsClients.bounded(KinesisClient.builder().overrideConfiguration(o -> o
                    .apiCallTimeout(Duration.ofSeconds(3)).apiCallAttemptTimeout(Duration.ofSeconds(2))))
                    .httpClientBuilder(AwsClients.httpClient()).endpointOverride(java.net.URI.create(
                            "http://127.0.0.1:" + server.getLocalPort()))
                    .region(software.amazon.awssdk.regions.Region.US_EAST_1)
                    .credentialsProvider(AwsClients.credentials(config("http://x").aws().credentials(), "t"))
                    .build()) {
                long began = System.nanoTime();
                SdkClientException e = assertThrows(SdkClientException.class, () -> kinesis.listStreams());
                assertTrue(e.getMessage().contains("timeout") || e.getMessage().contains("did not complete"),
                        e.getMessage());
                long tookMillis = (System.nanoTime() - began) / 1_000_000;
                assertTrue(tookMillis < 10_000, "cut after " + tookMillis + " ms");
                // the JDK's keep-alive cleaner would otherwise go on reading the answer to reuse the connection,
                // holding a lock the closing caller may wait for until the peer ends (AwsClients)
                assertTrue(peerCut.await(10, TimeUnit.SECONDS), "the connection is still read");
            }
        }
    }

    /**
     * Answers each connection's request with a head and then, two bytes a second, a CBOR body (the Kinesis client's
     * encoding) that never ends: a map whose first key is a text of one-letter chunks. A write that fails once the
     * client closed the connection counts {@code peerCut} down.
     */
    private static void trickle(ServerSocket server, CountDownLatch peerCut) {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                Thread t = new Thread(() -> {
                    try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
                        in.read(new byte[8192]);
                        out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/x-amz-cbor-1.1\r\n"
                                + "Content-Length: 100000\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                        out.write(new byte[] {(byte) 0xBF, (byte) 0x7F}); // an open map, an open text key
                        for (int i = 0; i < 40_000; i++) {
                            out.write(new byte[] {0x61, 'a'});
                            out.flush();
                            Thread.sleep(1_000);
                        }
                    } catch (IOException closed) {
                        peerCut.countDown(); // the client closed the connection
                    } catch (InterruptedException stopped) {
                        Thread.currentThread().interrupt();
                    }
                });
                t.setDaemon(true);
                t.start();
            } catch (IOException closed) {
                return;
            }
        }
    }
}
