package io.streamtables.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConnectionTest {

    static Connection.Options unsigned(String region, String endpointUrl) {
        return new Connection.Options(region, endpointUrl, null, false);
    }

    @Test
    void withoutAnEndpointTheRegionsKinesisEndpoint() throws Exception {
        assertEquals(URI.create("https://kinesis.eu-west-1.amazonaws.com"),
                Connection.resolve(unsigned("eu-west-1", null), Map.of()).endpoint());
        assertEquals(URI.create("https://kinesis.cn-north-1.amazonaws.com.cn"),
                Connection.resolve(unsigned("cn-north-1", null), Map.of()).endpoint());
    }

    @Test
    void theFlagThenTheAwsCliVariables() throws Exception {
        Map<String, String> env = Map.of("AWS_ENDPOINT_URL_KINESIS", "http://127.0.0.1:8081",
                "AWS_ENDPOINT_URL", "http://127.0.0.1:8082");
        assertEquals(URI.create("http://127.0.0.1:8080"),
                Connection.resolve(unsigned("us-east-1", "http://127.0.0.1:8080"), env).endpoint());
        assertEquals(URI.create("http://127.0.0.1:8081"), Connection.resolve(unsigned("us-east-1", null), env).endpoint());
        assertEquals(URI.create("http://127.0.0.1:8082"), Connection.resolve(unsigned("us-east-1", null),
                Map.of("AWS_ENDPOINT_URL", "http://127.0.0.1:8082")).endpoint());
        Connection c = Connection.resolve(unsigned("us-east-1", null), env);
        assertEquals("us-east-1", c.region());
        assertNull(c.credentials());
    }

    @Test
    void signedRequestsTakeTheDefaultChainsCredentials() throws Exception {
        Connection c = Connection.resolve(new Connection.Options("us-east-1", "http://127.0.0.1:8080", null, true), Map.of());
        assertEquals("AKIDCLITEST", c.credentials().accessKeyId());
    }

    @Test
    void aBadEndpointIsAUsageError() {
        UsageException e = assertThrows(UsageException.class,
                () -> Connection.resolve(unsigned("us-east-1", "127.0.0.1:8080"), Map.of()));
        assertTrue(e.getMessage().startsWith("endpoint URL '127.0.0.1:8080' is not valid (expected e.g. http://127.0.0.1:8080)"),
                e.getMessage());
    }
}
