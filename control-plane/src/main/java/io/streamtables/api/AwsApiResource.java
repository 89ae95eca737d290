package io.streamtables.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import io.streamtables.auth.Caller;
import io.streamtables.auth.ReceivedRequest;
import io.streamtables.auth.SigV4Authenticator;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jboss.logging.Logger;

/**
 * The AWS JSON 1.1 / CBOR 1.1 wire protocol on {@code POST /}: routes by {@code X-Amz-Target} to the
 * {@link AwsApi} that owns the prefix, once the request's SigV4 signature checked out for that API
 * ({@link SigV4Authenticator}), and answers errors the way the AWS SDKs parse them. {@link RequestGate} has
 * checked the headers and bounded the body before this reads it.
 */
@Path("/")
public class AwsApiResource {

    private static final Logger LOG = Logger.getLogger(AwsApiResource.class);

    private final AwsApis apis;
    private final ObjectMapper json;
    private final SigV4Authenticator authenticator;

    public AwsApiResource(AwsApis apis, ObjectMapper json, SigV4Authenticator authenticator) {
        this.apis = apis;
        this.json = json;
        this.authenticator = authenticator;
    }

    @POST
    public Response call(HttpHeaders headers, @Context HttpServerRequest received, byte[] body) {
        AwsWire wire = AwsWire.of(headers.getHeaderString(HttpHeaders.CONTENT_TYPE), json);
        String target = headers.getHeaderString("X-Amz-Target");
        try {
            AwsApis.Target operation = apis.route(target);
            Caller caller = authenticator.authenticate(asReceived(received, body), operation.api().signingName());
            JsonNode request = read(wire, body);
            Object result = operation.api().handle(operation.operation(), request, caller);
            return Response.ok(wire.mapper().writeValueAsBytes(result == null ? Map.of() : result), wire.contentType())
                    .build();
        } catch (AwsApiException e) {
            return error(wire, e);
        } catch (IOException | RuntimeException e) {
            LOG.errorf(e, "%s failed", target);
            return error(wire, new AwsApiException("InternalFailure", 500,
                    "internal error: " + e.getClass().getSimpleName()));
        }
    }

    /** The body as one object (an empty body is an empty request): one value, nothing after it. */
    private static JsonNode read(AwsWire wire, byte[] body) {
        if (body == null || body.length == 0) {
            return NullNode.getInstance();
        }
        JsonNode request;
        try {
            request = wire.mapper().reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readTree(body);
        } catch (IOException e) {
            throw new AwsApiException("SerializationException", 400, "the request body is not valid " + wire.format());
        }
        if (request == null || !request.isObject()) {
            throw new AwsApiException("SerializationException", 400, "the request body must be a " + wire.format()
                    + " object (a map of the operation's members)");
        }
        return request;
    }

    /** The request as SigV4 covers it; {@code body} null while it is not read yet. */
    static ReceivedRequest asReceived(HttpServerRequest request, byte[] body) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        request.headers().forEach(h -> headers.computeIfAbsent(h.getKey().toLowerCase(Locale.ROOT),
                k -> new ArrayList<>()).add(h.getValue()));
        if (request.version() == HttpVersion.HTTP_2 && request.host() != null) {
            // HTTP/2 carries the authority as a pseudo-header: clients sign it as :authority or as host
            headers.put(":authority", List.of(request.host()));
            headers.putIfAbsent("host", List.of(request.host()));
        }
        return new ReceivedRequest(request.method().name(), request.path(), request.query(), headers, body);
    }

    private static Response error(AwsWire wire, AwsApiException e) {
        return Response.status(e.status()).type(wire.contentType()).header(AwsWire.ERROR_TYPE_HEADER, e.type())
                .entity(wire.errorBody(e)).build();
    }
}
