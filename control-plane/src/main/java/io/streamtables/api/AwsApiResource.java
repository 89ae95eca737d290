package io.streamtables.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import io.streamtables.auth.Caller;
import io.streamtables.auth.ReceivedRequest;
import io.streamtables.auth.SigV4Authenticator;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import jakarta.enterprise.inject.Instance;
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
 * ({@link SigV4Authenticator}), and answers errors the way the AWS SDKs parse them.
 */
@Path("/")
public class AwsApiResource {

    private static final Logger LOG = Logger.getLogger(AwsApiResource.class);
    static final String JSON_TYPE = "application/x-amz-json-1.1";
    static final String CBOR_TYPE = "application/x-amz-cbor-1.1";

    private final Map<String, AwsApi> apis = new LinkedHashMap<>();
    private final ObjectMapper json;
    private final ObjectMapper cbor;
    private final SigV4Authenticator authenticator;

    public AwsApiResource(Instance<AwsApi> apis, ObjectMapper json, SigV4Authenticator authenticator) {
        apis.forEach(api -> this.apis.put(api.targetPrefix(), api));
        this.json = json;
        this.authenticator = authenticator;
        this.cbor = new ObjectMapper(new CBORFactory()).setSerializationInclusion(
                com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL);
    }

    @POST
    public Response call(HttpHeaders headers, @Context HttpServerRequest received, byte[] body) {
        String contentType = headers.getHeaderString(HttpHeaders.CONTENT_TYPE);
        boolean isCbor = contentType != null && contentType.startsWith(CBOR_TYPE);
        ObjectMapper mapper = isCbor ? cbor : json;
        String responseType = isCbor ? CBOR_TYPE : JSON_TYPE;
        String target = headers.getHeaderString("X-Amz-Target");
        try {
            int dot = target == null ? -1 : target.indexOf('.');
            AwsApi api = dot < 0 ? null : apis.get(target.substring(0, dot));
            if (api == null) {
                throw new AwsApiException("UnknownOperationException", 400,
                        "X-Amz-Target '" + target + "' names no operation of this service");
            }
            Caller caller = authenticator.authenticate(asReceived(received, body), api.signingName());
            JsonNode request = read(mapper, body, isCbor ? "CBOR" : "JSON");
            Object result = api.handle(target.substring(dot + 1), request, caller);
            return Response.ok(mapper.writeValueAsBytes(result == null ? Map.of() : result), responseType).build();
        } catch (AwsApiException e) {
            return error(mapper, responseType, e.status(), e.type(), e.getMessage());
        } catch (IOException | RuntimeException e) {
            LOG.errorf(e, "%s failed", target);
            return error(mapper, responseType, 500, "InternalFailure", "internal error: " + e.getClass().getSimpleName());
        }
    }

    /** The body as one object (an empty body is an empty request): one value, nothing after it. */
    private static JsonNode read(ObjectMapper mapper, byte[] body, String format) {
        if (body == null || body.length == 0) {
            return NullNode.getInstance();
        }
        JsonNode request;
        try {
            request = mapper.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).readTree(body);
        } catch (IOException e) {
            throw new AwsApiException("SerializationException", 400, "the request body is not valid " + format);
        }
        if (request == null || !request.isObject()) {
            throw new AwsApiException("SerializationException", 400, "the request body must be a " + format
                    + " object (a map of the operation's members)");
        }
        return request;
    }

    private static ReceivedRequest asReceived(HttpServerRequest request, byte[] body) {
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

    private static Response error(ObjectMapper mapper, String responseType, int status, String type, String message) {
        try {
            return Response.status(status).type(responseType).header("x-amzn-ErrorType", type)
                    .entity(mapper.writeValueAsBytes(Map.of("__type", type, "message", message))).build();
        } catch (IOException e) {
            return Response.status(500).build();
        }
    }
}
