package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The management port (health, metrics, the console with every account's channels) of the packaged application, in
 * production mode: under {@code @QuarkusTest} Quarkus's own default address is already localhost, so only the package
 * shows ours. By default it is on loopback, not reachable at the machine's other address while the API port is; bound
 * to every interface as the Kubernetes pods run it, a scraper that reaches it by that address is answered and a
 * request naming another host is still refused.
 */
class ManagementPortIT {

    @Test
    void byDefaultTheManagementPortIsOnLoopbackOnly() throws Exception {
        InetAddress external = externalAddress();
        try (AllInOneProcess app = start(Map.of())) {
            connect(external, port(app.url())); // the same address reaches the API port: not a firewall's doing
            ConnectException refused = assertThrows(ConnectException.class,
                    () -> connect(external, port(app.managementUrl())),
                    "the management port answered at " + external.getHostAddress());
            System.out.printf("management port at %s:%d: %s; at 127.0.0.1: %d%n", external.getHostAddress(),
                    port(app.managementUrl()), refused.getMessage(),
                    status(InetAddress.getLoopbackAddress(), port(app.managementUrl()), "/q/health/live",
                            "127.0.0.1:" + port(app.managementUrl())));
        }
    }

    @Test
    void onEveryInterfaceAsPodsRunItTheHostIsStillChecked() throws Exception {
        InetAddress external = externalAddress();
        try (AllInOneProcess app = start(Map.of("quarkus.management.host", "0.0.0.0"))) {
            int management = port(app.managementUrl());
            String address = external.getHostAddress() + ":" + management;
            assertEquals(200, status(external, management, "/q/metrics", address), "a scraper at " + address);
            assertEquals(421, status(external, management, "/console/status.json", "evil.example:" + management),
                    "a name rebound to this machine");
        }
    }

    /** An address of this machine that is not loopback, IPv4 first (kubelets and scrapers reach pods so). */
    private static InetAddress externalAddress() throws SocketException {
        Optional<InetAddress> found = NetworkInterface.networkInterfaces().filter(ManagementPortIT::upAndNotLoopback)
                .flatMap(NetworkInterface::inetAddresses)
                .filter(a -> !a.isLoopbackAddress() && !a.isLinkLocalAddress() && !a.isAnyLocalAddress())
                .min(Comparator.comparing(a -> a instanceof Inet4Address ? 0 : 1));
        Assumptions.assumeTrue(found.isPresent(), "this machine has no address but loopback");
        return found.get();
    }

    private static boolean upAndNotLoopback(NetworkInterface i) {
        try {
            return i.isUp() && !i.isLoopback();
        } catch (SocketException e) {
            return false;
        }
    }

    /** The all-in-one with no channel and these settings besides the peers'. */
    private static AllInOneProcess start(Map<String, String> settings) throws Exception {
        Path dir = AllInOneProcess.tempDir("management");
        Path channels = Files.writeString(dir.resolve("channels.json"), "[]");
        Map<String, String> config = new LinkedHashMap<>(Peers.appConfig(dir, channels,
                Peers.catalog("jdbc:sqlite:" + dir.resolve("catalog.db"), "unused")));
        config.putAll(settings);
        return new AllInOneProcess(dir, config).start();
    }

    private static int port(String url) {
        return URI.create(url).getPort();
    }

    private static void connect(InetAddress address, int port) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(address, port), 5_000);
        }
    }

    /** The status of a GET with this Host (Java's HTTP clients will not send another than the URL's). */
    private static int status(InetAddress address, int port, String path, String host) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(address, port), 5_000);
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1));
            String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            return Integer.parseInt(answer.split(" ", 3)[1]);
        }
    }
}
