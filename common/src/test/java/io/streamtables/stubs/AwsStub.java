package io.streamtables.stubs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

/**
 * An AWS service that cannot run here, on the wire protocol its official SDK client speaks: AWS JSON 1.1 (KMS,
 * CloudWatch Logs: a POST whose {@code X-Amz-Target} names the operation) or Smithy RPC v2 CBOR (CloudWatch: a POST
 * to {@code /service/<service>/operation/<operation>}), gzip-compressed where the service asks for it. Each
 * operation answers what its responder returns, or the error it throws; every call is recorded with its body, the
 * key that signed it and the answer's status.
 */
public final class AwsStub implements AutoCloseable {

    /**
     * One call: the operation (the target, or the CBOR operation's name), its request, the key that signed it and
     * the session token it carried, and the status of the answer.
     */
    public record Call(String operation, JsonNode request, String signedBy, String sessionToken, int status) {
    }

    /** An error answer: the HTTP status and the AWS error type the SDK turns into its exception. */
    public static final class Refusal extends RuntimeException {
        final int status;
        final String type;

        public Refusal(int status, String type, String message) {
            super(message);
            this.status = status;
            this.type = type;
        }
    }

    private static final Pattern CREDENTIAL = Pattern.compile("Credential=([^/]+)/");
    private static final Pattern CBOR_PATH = Pattern.compile("/service/[^/]+/operation/([^/]+)");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final CBORMapper CBOR = new CBORMapper();

    private final HttpServer server;
    private final Map<String, Function<JsonNode, JsonNode>> responders = new ConcurrentHashMap<>();
    private final List<Call> calls = new CopyOnWriteArrayList<>();

    public AwsStub() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** How {@code operation} answers from now on (an unknown operation is refused as the services do). */
    public AwsStub on(String operation, Function<JsonNode, JsonNode> responder) {
        responders.put(operation, responder);
        return this;
    }

    public List<Call> calls() {
        return List.copyOf(calls);
    }

    public List<Call> calls(String operation) {
        return calls.stream().filter(c -> c.operation().equals(operation)).toList();
    }

    public static ObjectNode object() {
        return JSON.createObjectNode();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body = exchange.getRequestBody().readAllBytes();
            if ("gzip".equals(exchange.getRequestHeaders().getFirst("Content-Encoding"))) { // PutMetricData's
                body = new GZIPInputStream(new ByteArrayInputStream(body)).readAllBytes();
            }
            Matcher cborPath = CBOR_PATH.matcher(exchange.getRequestURI().getPath());
            boolean cbor = cborPath.matches();
            String operation = cbor ? cborPath.group(1) : exchange.getRequestHeaders().getFirst("X-Amz-Target");
            JsonNode request = body.length == 0 ? object() : (cbor ? CBOR : JSON).readTree(body);
            Matcher signer = CREDENTIAL.matcher(String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
            String signedBy = signer.find() ? signer.group(1) : null;
            Function<JsonNode, JsonNode> responder = operation == null ? null : responders.get(operation);
            int status = 200;
            JsonNode answer;
            try {
                if (responder == null) {
                    throw new Refusal(400, "UnknownOperationException", "no operation " + operation);
                }
                answer = responder.apply(request);
            } catch (Refusal r) {
                status = r.status;
                answer = object().put("__type", r.type).put("message", r.getMessage());
            } catch (RuntimeException e) { // a stub's own fault: answered, so the test shows it
                status = 500;
                answer = object().put("__type", "InternalFailure").put("message", String.valueOf(e));
            }
            calls.add(new Call(String.valueOf(operation), request, signedBy,
                    exchange.getRequestHeaders().getFirst("X-Amz-Security-Token"), status));
            answer(exchange, cbor, status, answer);
        }
    }

    private static void answer(HttpExchange exchange, boolean cbor, int status, JsonNode answer) throws IOException {
        byte[] bytes = (cbor ? CBOR : JSON).writeValueAsBytes(answer);
        exchange.getResponseHeaders().set("Content-Type", cbor ? "application/cbor" : "application/x-amz-json-1.1");
        exchange.getResponseHeaders().set("x-amzn-RequestId", UUID.randomUUID().toString());
        if (cbor) {
            exchange.getResponseHeaders().set("smithy-protocol", "rpc-v2-cbor");
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
