package io.streamtables.management;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Which Host the management port answers, its port parsed off by Vert.x (on a running port: control-plane's
 * ManagementPortHostsTest): what cannot be rebound (an address, localhost) and the operators' names, nothing that
 * only looks like them.
 */
class ManagementHostsTest {

    private final ManagementHosts hosts = new ManagementHosts(() -> Optional.of(List.of("Operators.Example ")));

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "10.1.2.3", "192.0.2.2", "0.0.0.0", "[::1]", "[fd00::2]",
        "[::ffff:127.0.0.1]", "localhost", "LOCALHOST", "operators.example", "OPERATORS.example"})
    void answered(String host) {
        assertTrue(hosts.answers(host), host);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "evil.example", "127.0.0.1.evil.example", "localhost.evil.example",
        "evil.localhost", "localhost.", "operators.example.evil.example", "[evil.example]", "[127.0.0.1]", "::1",
        "127.1", "0x7f.0.0.1", "2130706433", "256.0.0.1", "[::1"})
    void refused(String host) {
        assertFalse(hosts.answers(host), host);
    }
}
