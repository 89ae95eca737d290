package io.streamtables.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.streamtables.channel.Channel;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A table bucket's catalog that refuses to create the channel's table fails the channel for good, with a reason that
 * says what to grant (the managed feature leaves the channel ACTIVE with no table).
 */
class TableRefusalsTest {

    private static final String DENIED = "User: arn:aws:sts::000000000000:assumed-role/delivery/delivery-orders is not "
            + "authorized to perform: s3tables:CreateTable";

    @TempDir
    Path dir;

    private CommitFixture f;

    @BeforeEach
    void setUp() {
        f = new CommitFixture(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    /**
     * Iceberg's REST client against an endpoint that answers CreateTable with AccessDenied (403), as S3 Tables' does
     * when the caller may not create tables: the refusal is told apart from a peer that does not answer.
     */
    @Test
    void aCatalogRefusingToCreateTheTableRefusesForGood() throws Exception {
        Channel channel = CommitFixture.channel("refused-channel", "refused");
        try (RefusingRestCatalog server = new RefusingRestCatalog(); RESTCatalog catalog = new RESTCatalog()) {
            catalog.initialize("refusing", Map.of("uri", server.uri()));
            TableOpener.TableRefusedException e = assertThrows(TableOpener.TableRefusedException.class,
                    () -> TableOpener.open(catalog, false, channel, f.schema, null));
            assertTrue(e.getCause() instanceof ForbiddenException, String.valueOf(e.getCause()));
            assertTrue(e.getMessage().contains(DENIED), e::getMessage);
            assertEquals(List.of("POST /v1/namespaces/sales/tables"), server.creates(), "asked once, not retried");
        }
    }

    /** An Amazon S3 Tables bucket is the tenant's: the reason names the bucket, the table, the refusal and the grant. */
    @Test
    void anS3TablesRefusalSaysWhatToGrant() {
        String reason = TableRefusals.reason(f.channel, true, "the S3 Tables endpoint https://s3tables.us-east-1"
                + ".amazonaws.com/iceberg", new ForbiddenException("Forbidden: %s", DENIED));
        assertTrue(reason.startsWith("S3TablesConfigurationList[0].TableBucketARN " + f.channel.tableBucketArn()
                + ": S3 Tables refused to create table sales.orders (Forbidden: " + DENIED + ")"), reason);
        assertTrue(reason.contains("s3tables:CreateNamespace and s3tables:CreateTable")
                && reason.endsWith("then delete the channel and create it again"), reason);
    }

    /** A catalog the operator configured is the operator's: its error goes to the log, not to the tenant. */
    @Test
    void anOperatorsCatalogRefusalIsTheOperatorsToRead() {
        String reason = TableRefusals.reason(f.channel, false, "delivery.catalog.*",
                new ForbiddenException("Forbidden: token of https://catalog.internal:8181 expired"));
        assertTrue(reason.contains("refused to create table sales.orders; ask the operator"), reason);
        assertFalse(reason.contains("catalog.internal") || reason.contains("delivery.catalog"), reason);
    }

    /**
     * Iceberg's REST catalog protocol as far as creating a table goes: the namespace exists, the table does not, and
     * creating it is refused with AccessDenied.
     */
    private static final class RefusingRestCatalog implements AutoCloseable {

        private final HttpServer server;
        private final List<String> creates = new CopyOnWriteArrayList<>();

        RefusingRestCatalog() throws IOException {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            server.createContext("/", this::handle);
            server.start();
        }

        String uri() {
            return "http://127.0.0.1:" + server.getAddress().getPort();
        }

        List<String> creates() {
            return List.copyOf(creates);
        }

        private void handle(HttpExchange exchange) throws IOException {
            try (exchange) {
                exchange.getRequestBody().readAllBytes();
                String request = exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath();
                if (request.equals("GET /v1/config")) {
                    answer(exchange, 200, "{\"defaults\":{},\"overrides\":{}}");
                } else if (request.equals("HEAD /v1/namespaces/sales")) {
                    answer(exchange, 204, null);
                } else if (request.equals("GET /v1/namespaces/sales")) {
                    answer(exchange, 200, "{\"namespace\":[\"sales\"],\"properties\":{}}");
                } else if (request.equals("POST /v1/namespaces/sales/tables")) {
                    creates.add(request);
                    answer(exchange, 403, error(403, "ForbiddenException", DENIED));
                } else if (request.startsWith("GET /v1/namespaces/sales/tables/")) {
                    answer(exchange, 404, error(404, "NoSuchTableException", "Table does not exist"));
                } else {
                    answer(exchange, 400, error(400, "BadRequestException", "not served here: " + request));
                }
            }
        }

        private static String error(int code, String type, String message) {
            return "{\"error\":{\"message\":\"" + message + "\",\"type\":\"" + type + "\",\"code\":" + code + "}}";
        }

        private static void answer(HttpExchange exchange, int status, String json) throws IOException {
            if (json == null) {
                exchange.sendResponseHeaders(status, -1);
                return;
            }
            byte[] body = json.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }
}
