package io.streamtables.controlplane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The management port answers only requests that name it by an address, localhost or a configured name
 * ({@code delivery.management.host-names}, operators.example here): a browser led there by a hostile page whose
 * name resolves to 127.0.0.1 names that page, and reads nothing of ours, on our routes and on Quarkus's own.
 * Raw sockets, since Java's HTTP clients will not send another Host.
 */
@QuarkusTest
class ManagementPortHostsTest {

    @TestHTTPResource(value = "/", management = true)
    URL management;

    /**
     * On ours (the console), Quarkus's (health, metrics) and none at all. The last three are no authority: Vert.x's
     * router fails them before any route, and they are refused the same.
     */
    @ParameterizedTest
    @ValueSource(strings = {"/console", "/console/status.json", "/q/metrics", "/q/health/live", "/q/health",
        "/no-such-route"})
    void aRequestNamingAnotherHostIsRefusedOnEveryRoute(String path) throws IOException {
        for (String host : new String[] {"evil.example:" + management.getPort(), "evil.example", "EVIL.example.",
            "127.0.0.1.evil.example", "localhost.evil.example:" + management.getPort(), "[::1]evil.example",
            "evil example", "127.0.0.1:99999"}) {
            Answer answer = get(path, "HTTP/1.1", host);
            assertEquals(421, answer.status(), "Host: " + host + " on " + path + ": " + answer);
            assertEquals("", answer.body(), "Host: " + host + " on " + path + ": no body of ours");
        }
    }

    /** HTTP/1.0 may leave Host out (HTTP/1.1 may not: Vert.x's router fails it): such a request names nothing. */
    @ParameterizedTest
    @ValueSource(strings = {"/console/status.json", "/q/health/live"})
    void aRequestWithoutHostIsRefused(String path) throws IOException {
        for (String version : new String[] {"HTTP/1.0", "HTTP/1.1"}) {
            Answer answer = get(path, version, null);
            assertEquals(421, answer.status(), version + " " + path + ": " + answer);
            assertEquals("", answer.body(), version + " " + path);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1:%d", "localhost:%d", "LocalHost", "[::1]:%d", "192.0.2.7:%d",
        "operators.example:%d", "Operators.Example"})
    void anAddressLocalhostOrAConfiguredNameIsAnswered(String hostFormat) throws IOException {
        String host = hostFormat.formatted(management.getPort());
        Answer status = get("/console/status.json", "HTTP/1.1", host);
        assertEquals(200, status.status(), "Host: " + host + ": " + status);
        assertTrue(status.body().contains("\"channels\""), status.body());
        Answer metrics = get("/q/metrics", "HTTP/1.1", host);
        assertEquals(200, metrics.status(), "Host: " + host + ": " + metrics);
        assertTrue(metrics.body().contains("jvm_"), "metrics");
        Answer live = get("/q/health/live", "HTTP/1.1", host);
        assertEquals(200, live.status(), "Host: " + host + ": " + live);
        assertTrue(live.body().contains("\"UP\""), live.body());
    }

    record Answer(int status, String body) {
        @Override
        public String toString() {
            return status + " " + (body.length() > 200 ? body.substring(0, 200) + "..." : body);
        }
    }

    /** A GET with this Host (none if null), the connection closed after the answer. */
    private Answer get(String path, String version, String host) throws IOException {
        try (Socket s = new Socket(management.getHost(), management.getPort())) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("GET " + path + " " + version + "\r\n" + (host == null ? "" : "Host: " + host + "\r\n")
                    + "Connection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            // ISO-8859-1: one char a byte, so that chunk sizes count chars; the body is decoded as UTF-8 after
            String whole = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            int head = whole.indexOf("\r\n\r\n");
            assertTrue(head > 0, "no answer to GET " + path + " with Host " + host + ": '" + whole + "'");
            return new Answer(Integer.parseInt(whole.substring(0, whole.indexOf("\r\n")).split(" ")[1]),
                    dechunked(whole.substring(0, head), whole.substring(head + 4)));
        }
    }

    /** A chunked body's content (metrics are sent so); another as it came. */
    private static String dechunked(String head, String body) {
        if (!head.toLowerCase().contains("transfer-encoding: chunked")) {
            return utf8(body);
        }
        StringBuilder content = new StringBuilder();
        int at = 0;
        while (true) {
            int end = body.indexOf("\r\n", at);
            int size = Integer.parseInt(body.substring(at, end).strip(), 16);
            if (size == 0) {
                return utf8(content.toString());
            }
            content.append(body, end + 2, end + 2 + size);
            at = end + 2 + size + 2;
        }
    }

    private static String utf8(String bytes) {
        return new String(bytes.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
    }
}
