package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * 10 000 connections at once against the packaged all-in-one (its own process, so that each side holds its own
 * sockets): junk on them is answered 400, the official client's signed requests are served meanwhile, and the
 * server closes the idle ones after {@code quarkus.http.idle-timeout} (5 s here, 60 s by default).
 */
class ConnectionFloodIT {

    static final int CONNECTIONS = 10_000;
    static final int IDLE_SECONDS = 5;

    @Test
    void tenThousandConnectionsAreBoundedInTimeAndSignedRequestsGoOn() throws Exception {
        Path dir = AllInOneProcess.tempDir("flood");
        Path channels = Files.writeString(dir.resolve("channels.json"), "[]");
        Map<String, String> config = new java.util.LinkedHashMap<>(Peers.appConfig(dir, channels,
                Peers.catalog("jdbc:sqlite:" + dir.resolve("catalog.db"), "unused")));
        config.put("quarkus.http.idle-timeout", IDLE_SECONDS + "s");
        List<Socket> sockets = new ArrayList<>(CONNECTIONS);
        try (AllInOneProcess app = new AllInOneProcess(dir, config).start();
                KinesisClient kinesis = KinesisClient.builder().endpointOverride(URI.create(app.url()))
                        .region(Region.of(Peers.REGION)).credentialsProvider(GsrEndToEndIT.CREDENTIALS)
                        .httpClientBuilder(UrlConnectionHttpClient.builder()).build()) {
            InetSocketAddress address = new InetSocketAddress("127.0.0.1", URI.create(app.url()).getPort());
            long began = System.nanoTime();
            for (int i = 0; i < CONNECTIONS; i++) {
                Socket s = new Socket();
                s.connect(address, 5_000);
                sockets.add(s);
            }
            System.out.printf("flood: %d connections open in %d ms%n", CONNECTIONS, (System.nanoTime() - began) / 1_000_000);
            assertTrue(kinesis.listChannels(r -> { }).sdkHttpResponse().isSuccessful(), "served during the flood");

            for (Socket junk : sockets.subList(0, 100)) {
                junk.getOutputStream().write("\u0000\u0001 NOT HTTP\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
            }
            for (Socket junk : sockets.subList(0, 100)) {
                junk.setSoTimeout(10_000);
                String answer = statusLine(junk.getInputStream());
                assertTrue(answer.matches("HTTP/1\\.[01] 4\\d\\d .*"), "junk is a client error, not '" + answer + "'");
            }

            Thread.sleep((IDLE_SECONDS + 5) * 1_000L);
            for (Socket s : sockets.subList(100, 600)) {
                s.setSoTimeout(2_000);
                try {
                    assertEquals(-1, s.getInputStream().read(), "an idle connection sent something");
                } catch (SocketTimeoutException stillOpen) {
                    throw new AssertionError("an idle connection is open " + (IDLE_SECONDS + 7) + " s later");
                } catch (IOException reset) {
                    // closed by a reset: closed all the same
                }
            }
            assertTrue(kinesis.listChannels(r -> { }).sdkHttpResponse().isSuccessful(), "served after the flood");
        } finally {
            for (Socket s : sockets) {
                s.close();
            }
        }
    }

    private static String statusLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != -1 && c != '\n' && line.length() < 200; c = in.read()) {
            line.append((char) c);
        }
        return line.toString().trim();
    }
}
