package io.streamtables.api;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import io.streamtables.auth.AuthenticationException;
import io.streamtables.auth.Caller;
import io.streamtables.auth.ReceivedRequest;
import io.streamtables.auth.SigV4Authenticator;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.util.Map;
import org.jboss.logging.Logger;

/**
 * The AWS JSON 1.1 / CBOR 1.1 wire protocol on {@code POST /}: routes by {@code X-Amz-Target} to the {@link AwsApi}
 * that owns the prefix, once the request's SigV4 signature checked out for that API ({@link SigV4Authenticator}),
 * and answers errors the way the AWS SDKs parse them. {@link RequestGate} has checked the headers and received the
 * body within its bounds before; this runs on a worker thread, since the APIs read and write the service database.
 */
@ApplicationScoped
public class AwsApiEndpoint {

    private static final Logger LOG = Logger.getLogger(AwsApiEndpoint.class);

    private final AwsApis apis;
    private final ObjectMapper json;
    private final SigV4Authenticator authenticator;

    public AwsApiEndpoint(AwsApis apis, ObjectMapper json, SigV4Authenticator authenticator) {
        this.apis = apis;
        this.json = json;
        this.authenticator = authenticator;
    }

    /** An answer to write: the status, the encoding's content type, the AWS error type of an error, the body. */
    record Answer(int status, String contentType, String errorType, byte[] body) {
        static Answer error(AwsWire wire, AwsApiException e) {
            return new Answer(e.status(), wire.contentType(), e.type(), wire.errorBody(e));
        }
    }

    Answer call(ReceivedRequest request) {
        AwsWire wire = AwsWire.of(request.header("content-type"), json);
        String target = request.header("x-amz-target");
        try {
            AwsApis.Target operation = apis.route(target);
            Caller caller = authenticator.authenticate(request, operation.api().signingName());
            Object result = operation.api().handle(operation.operation(), read(wire, request.body()), caller);
            return new Answer(200, wire.contentType(), null,
                    wire.mapper().writeValueAsBytes(result == null ? Map.of() : result));
        } catch (AwsApiException e) {
            return Answer.error(wire, e);
        } catch (AuthenticationException e) {
            return Answer.error(wire, AwsApiException.of(e));
        } catch (IOException | RuntimeException e) {
            LOG.errorf(e, "%s failed", target);
            return Answer.error(wire, new AwsApiException("InternalFailure", 500,
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
}
