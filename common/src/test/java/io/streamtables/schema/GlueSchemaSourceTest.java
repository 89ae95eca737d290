package io.streamtables.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.glue.GlueClient;

/**
 * Issue 15: a version id the registry does not hold is looked up once a while, not once per record. The registry
 * here answers every GetSchemaVersion as AWS Glue answers an unknown id (EntityNotFoundException, Glue's JSON 1.1
 * error shape), and counts the calls; the client is the official AWS SDK one.
 */
class GlueSchemaSourceTest {

    private HttpServer registry;
    private final AtomicInteger calls = new AtomicInteger();
    private final AtomicLong now = new AtomicLong(1_000_000);
    private GlueSchemaSource source;

    @BeforeEach
    void start() throws Exception {
        registry = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        registry.createContext("/", exchange -> {
            calls.incrementAndGet();
            exchange.getRequestBody().readAllBytes();
            byte[] body = "{\"__type\":\"EntityNotFoundException\",\"Message\":\"Schema version is not found.\"}"
                    .getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/x-amz-json-1.1");
            exchange.sendResponseHeaders(400, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        registry.start();
        GlueClient glue = GlueClient.builder().region(Region.US_EAST_1)
                .endpointOverride(URI.create("http://127.0.0.1:" + registry.getAddress().getPort()))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("k", "s")))
                .httpClientBuilder(UrlConnectionHttpClient.builder()).build();
        source = new GlueSchemaSource(glue, new ObjectMapper(), now::get);
    }

    @AfterEach
    void stop() {
        source.close();
        registry.stop(0);
    }

    @Test
    void anUnknownVersionIsLookedUpOnceAWhile() {
        UUID unknown = UUID.randomUUID();
        for (int i = 0; i < 100; i++) {
            assertThrows(SchemaSource.SchemaNotFoundException.class, () -> source.version(unknown));
        }
        assertEquals(1, calls.get(), "lookups of one unknown id");

        now.addAndGet(GlueSchemaSource.MISS_TTL_MILLIS + 1);
        assertThrows(SchemaSource.SchemaNotFoundException.class, () -> source.version(unknown));
        assertEquals(2, calls.get(), "looked up again once the miss is old: the version may be registered since");

        assertThrows(SchemaSource.SchemaNotFoundException.class, () -> source.version(UUID.randomUUID()));
        assertEquals(3, calls.get(), "another id is another lookup");
    }
}
