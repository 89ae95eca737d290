package io.streamtables.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelDefinition;
import io.streamtables.config.AwsClients;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.sts.model.StsException;

/**
 * A version id the registry does not hold is looked up once a while, not once per record. The registry
 * here answers every GetSchemaVersion as AWS Glue answers an unknown id (EntityNotFoundException, Glue's JSON 1.1
 * error shape), and counts the calls; the client is the official AWS SDK one.
 */
class GlueSchemaSourceTest {

    private HttpServer registry;
    private final AtomicInteger calls = new AtomicInteger();
    /** What the registry answers every call with. */
    private volatile String errorType = "EntityNotFoundException";
    /** Each request's signing key and session token. */
    private final List<String> signers = new CopyOnWriteArrayList<>();
    private final AtomicLong now = new AtomicLong(1_000_000);
    private GlueSchemaSource source;

    @BeforeEach
    void start() throws Exception {
        registry = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        registry.createContext("/", exchange -> {
            calls.incrementAndGet();
            signers.add(exchange.getRequestHeaders().getFirst("Authorization").replaceAll(".*Credential=([^/]+)/.*", "$1")
                    + " " + exchange.getRequestHeaders().getFirst("X-Amz-Security-Token"));
            exchange.getRequestBody().readAllBytes();
            byte[] body = ("{\"__type\":\"" + errorType + "\",\"Message\":\"Schema version is not found.\"}")
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
                .httpClientBuilder(AwsClients.httpClient()).build();
        source = new GlueSchemaSource(glue, new ObjectMapper(), now::get, channel -> switch (channel.name()) {
            case "role" -> AwsRequestOverrideConfiguration.builder().credentialsProvider(StaticCredentialsProvider
                    .create(AwsSessionCredentials.create("ASIAROLE", "role-secret", "role-token"))).build();
            case "refused" -> AwsRequestOverrideConfiguration.builder().credentialsProvider(() -> {
                throw StsException.builder().statusCode(403).message("not authorized to perform sts:AssumeRole")
                        .awsErrorDetails(AwsErrorDetails.builder().errorCode("AccessDenied").build()).build();
            }).build();
            default -> null;
        }, new VersionCaches(2000, 64 << 20));
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

        now.addAndGet(RegistryMisses.TTL_MILLIS + 1);
        assertThrows(SchemaSource.SchemaNotFoundException.class, () -> source.version(unknown));
        assertEquals(2, calls.get(), "looked up again once the miss is old: the version may be registered since");

        assertThrows(SchemaSource.SchemaNotFoundException.class, () -> source.version(UUID.randomUUID()));
        assertEquals(3, calls.get(), "another id is another lookup");
    }

    /** A channel's lookups sign as its role's session where the source is told to; others as the service. */
    @Test
    void aChannelLooksUpAsItsRole() {
        Channel role = channel("role");
        assertThrows(SchemaSource.SchemaNotFoundException.class, () -> source.latest(role));
        assertThrows(SchemaSource.SchemaNotFoundException.class, () -> source.version(UUID.randomUUID(), role));
        assertThrows(SchemaSource.SchemaNotFoundException.class, () -> source.latest(channel("own")));
        assertThrows(SchemaSource.SchemaNotFoundException.class, () -> source.version(UUID.randomUUID()));
        assertEquals(List.of("ASIAROLE role-token", "ASIAROLE role-token", "k null", "k null"), signers);
    }

    /** A refused caller (a wrong lookup key, a role STS refuses) is no answer about the schema: records wait. */
    @Test
    void aRefusedCallerIsNotAMissingSchema() {
        errorType = "UnrecognizedClientException";
        UUID id = UUID.randomUUID();
        assertThrows(SchemaSource.RegistryUnavailableException.class, () -> source.version(id));
        assertThrows(SchemaSource.RegistryUnavailableException.class, () -> source.version(id));
        assertEquals(2, calls.get(), "not remembered as a miss");
        assertThrows(SchemaSource.RegistryUnavailableException.class, () -> source.latest(channel("refused")));
        assertEquals(2, calls.get(), "STS refused the role before the registry was asked");
    }

    /** Readiness asks the registry: any answer, a refusal too, is a registry there; no answer is not. */
    @Test
    void aPingPassesOnAnyAnswerAndFailsWithoutOne() {
        errorType = "AccessDeniedException";
        source.ping();
        assertEquals(1, calls.get(), "the registry was asked");
        registry.stop(0);
        assertThrows(SchemaSource.RegistryUnavailableException.class, source::ping);
    }

    private static Channel channel(String name) {
        return new Channel("arn:aws:kinesis:us-east-1:123456789012:channel/" + name,
                new ChannelDefinition(name, null, null, null, null, null, null), null, Channel.RecordFormat.GSR_JSON,
                "arn:aws:glue:us-east-1:123456789012:schema/registry/" + name, 1, "NONE",
                TableIdentifier.of("ns", name), null, null, null, null, null);
    }
}
