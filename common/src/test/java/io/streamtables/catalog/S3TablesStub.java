package io.streamtables.catalog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;

/**
 * S3 Tables' CreateTable as its API reference gives it (PUT /tables/{tableBucketARN}/{namespace}, JSON in, JSON
 * out, errors as {@code x-amzn-ErrorType}): the table it is asked for is created in {@code catalog} with the
 * columns and properties given; or AccessDeniedException.
 */
public final class S3TablesStub implements AutoCloseable {

    public record Request(String line, String authorization, JsonNode body) {
    }

    public final List<Request> requests = new CopyOnWriteArrayList<>();
    /** When set, every request is refused with AccessDeniedException and this message. */
    public volatile String refuse;
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpServer server;
    private final Catalog catalog;

    public S3TablesStub(Catalog catalog) throws IOException {
        this.catalog = catalog;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    public String uri() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = URLDecoder.decode(exchange.getRequestURI().getRawPath(), StandardCharsets.UTF_8);
            JsonNode body = JSON.readTree(exchange.getRequestBody());
            requests.add(new Request(exchange.getRequestMethod() + " " + path,
                    exchange.getRequestHeaders().getFirst("Authorization"), body));
            if (refuse != null) {
                answer(exchange, 403, "AccessDeniedException", JSON.createObjectNode().put("message", refuse));
                return;
            }
            String namespace = path.substring(path.lastIndexOf('/') + 1);
            List<Types.NestedField> columns = new ArrayList<>();
            for (JsonNode field : body.path("metadata").path("iceberg").path("schema").path("fields")) {
                columns.add(Types.NestedField.of(columns.size() + 1, !field.path("required").asBoolean(),
                        field.path("name").asText(), Types.fromPrimitiveString(field.path("type").asText())));
            }
            Map<String, String> properties = JSON.convertValue(body.path("metadata").path("iceberg")
                    .path("properties"), JSON.getTypeFactory().constructMapType(Map.class, String.class,
                            String.class));
            TableIdentifier id = TableIdentifier.of(namespace, body.path("name").asText());
            if (catalog.tableExists(id)) {
                answer(exchange, 409, "ConflictException",
                        JSON.createObjectNode().put("message", "A table with that name already exists"));
                return;
            }
            Table table = catalog.buildTable(id, new Schema(columns)).withProperties(properties).create();
            answer(exchange, 200, null, JSON.createObjectNode()
                    .put("tableARN", path.substring("/tables/".length(), path.lastIndexOf('/')) + "/table/"
                            + table.uuid())
                    .put("versionToken", "1"));
        }
    }

    private static void answer(HttpExchange exchange, int status, String errorType, JsonNode body)
            throws IOException {
        byte[] bytes = JSON.writeValueAsBytes(body);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        if (errorType != null) {
            exchange.getResponseHeaders().set("x-amzn-ErrorType", errorType);
        }
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
