package io.streamtables.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.runtime.configuration.MemorySize;
import io.quarkus.vertx.http.runtime.filters.Filters;
import io.streamtables.api.AwsApiEndpoint.Answer;
import io.streamtables.auth.AuthenticationException;
import io.streamtables.auth.ReceivedRequest;
import io.streamtables.auth.SigV4Authenticator;
import io.streamtables.auth.SigV4Authenticator.Claim;
import io.streamtables.config.ApiLimits;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The API port's one way in, on the event loop ahead of every route: a POST is the API's whatever spelling of the
 * path (Vert.x serves {@code //}, {@code /.} and {@code /%2e} as {@code /}, and anything else is refused), and before
 * any byte of its body is read it must show a target this service serves and an Authorization header a principal
 * could have sent ({@link SigV4Authenticator#checkHeaders}). Its body is then received here, within the request's
 * bounds: at most the largest body, taken from the {@link BodyBudget} as it arrives, at a least rate
 * ({@link ApiLimits#minBodyRate}) and whole within {@link ApiLimits#requestDeadline}. Only then does
 * {@link AwsApiEndpoint} check the signature and serve it, on a worker thread. So a caller without a key costs a
 * header's parse, and one with a key id at most its key's share for the deadline; every refusal is an AWS error in
 * the request's encoding.
 */
@ApplicationScoped
public class RequestGate {

    /** Ahead of the routes, so before anything reads the body. */
    private static final int PRIORITY = 1_000;
    /** How often a body under way is checked against the deadline and the least rate. */
    private static final long CHECK_MILLIS = 250;

    private final AwsApis apis;
    private final SigV4Authenticator authenticator;
    private final AwsApiEndpoint endpoint;
    private final ObjectMapper json;
    private final BodyBudget budget;
    private final long deadlineMillis;
    private final long minBytesPerSecond;
    private final long graceMillis;
    private final long maxBody;

    public RequestGate(AwsApis apis, SigV4Authenticator authenticator, AwsApiEndpoint endpoint, ObjectMapper json,
            ApiLimits limits, @ConfigProperty(name = "quarkus.http.limits.max-body-size") MemorySize maxBody) {
        this.apis = apis;
        this.authenticator = authenticator;
        this.endpoint = endpoint;
        this.json = json;
        this.budget = new BodyBudget(limits);
        this.deadlineMillis = limits.requestDeadline().toMillis();
        this.minBytesPerSecond = limits.minBodyRate().asLongValue();
        this.graceMillis = limits.minBodyRateGrace().toMillis();
        this.maxBody = maxBody.asLongValue();
    }

    /** What the bodies under way hold of the budget now. */
    long bodyBytesHeld() {
        return budget.held();
    }

    void register(@Observes Filters filters) {
        filters.register(this::admit, PRIORITY);
    }

    /**
     * A request Vert.x refuses before any route (no Host, a malformed one, a path it cannot parse) is answered here
     * and not logged: Quarkus's own error handler logs each such refusal at ERROR, so a caller could fill the log.
     */
    void registerFailures(@Observes Router router) {
        router.route().order(Integer.MIN_VALUE).failureHandler(ctx -> {
            if (ctx.statusCode() == 400 && !ctx.response().headWritten()) {
                refuse(ctx, AwsWire.of(ctx.request().getHeader(HttpHeaders.CONTENT_TYPE), json),
                        new AwsApiException("IncompleteSignatureException", 400, "the request's Host header or path "
                                + "is missing or malformed: the signature covers both"));
            } else {
                ctx.next();
            }
        });
    }

    private void admit(RoutingContext ctx) {
        HttpServerRequest request = ctx.request();
        if (request.method() != HttpMethod.POST) {
            ctx.next(); // not the API: Quarkus answers it (404) without reading a body
            return;
        }
        AwsWire wire = AwsWire.of(request.getHeader(HttpHeaders.CONTENT_TYPE), json);
        Claim claim;
        try {
            if (!"/".equals(ctx.normalizedPath())) {
                throw new AwsApiException("UnknownOperationException", 404, "this service serves POST / only");
            }
            if (declaredLength(request) > maxBody) {
                throw tooLarge();
            }
            String signingName = apis.route(request.getHeader("X-Amz-Target")).api().signingName();
            claim = authenticator.checkHeaders(asReceived(request, null), signingName);
        } catch (AwsApiException e) {
            refuse(ctx, wire, e);
            return;
        } catch (AuthenticationException e) {
            refuse(ctx, wire, AwsApiException.of(e));
            return;
        }
        new Arrival(ctx, wire, claim).start();
    }

    /** One request's body on its way: what arrived, what it holds of the budget, and its checks. */
    private final class Arrival {
        private final RoutingContext ctx;
        private final HttpServerRequest request;
        private final AwsWire wire;
        private final Claim claim;
        private final long began = System.nanoTime();
        private final Buffer body = Buffer.buffer();
        private long held;
        private long timer;
        private boolean refused;

        Arrival(RoutingContext ctx, AwsWire wire, Claim claim) {
            this.ctx = ctx;
            this.request = ctx.request();
            this.wire = wire;
            this.claim = claim;
        }

        void start() {
            ctx.addEndHandler(done -> { // the answer is out or the connection gone: the body's share comes back
                ctx.vertx().cancelTimer(timer);
                budget.give(claim, held);
                held = 0;
            });
            if (request.isEnded()) { // nothing of it is left to arrive
                whole();
                return;
            }
            timer = ctx.vertx().setPeriodic(CHECK_MILLIS, id -> check());
            request.handler(this::arrived);
            request.endHandler(end -> whole());
            if ("100-continue".equalsIgnoreCase(request.getHeader(HttpHeaders.EXPECT))
                    && request.version() == HttpVersion.HTTP_1_1) {
                ctx.response().writeContinue();
            }
            request.resume(); // a route ahead of this one may have paused it
        }

        private void arrived(Buffer chunk) {
            if (refused) {
                return;
            }
            if (body.length() + chunk.length() > maxBody) {
                fail(tooLarge());
                return;
            }
            BodyBudget.Refusal refusal = budget.take(claim, chunk.length());
            if (refusal != null) {
                fail(new AwsApiException("ServiceUnavailableException", 503, refusal.reason + ": retry"));
                return;
            }
            held += chunk.length();
            body.appendBuffer(chunk);
        }

        private void check() {
            long elapsedMillis = (System.nanoTime() - began) / 1_000_000;
            if (refused || request.isEnded()) {
                ctx.vertx().cancelTimer(timer);
            } else if (elapsedMillis >= deadlineMillis) {
                fail(new AwsApiException("RequestTimeoutException", 408, "the request did not arrive whole within "
                        + deadlineMillis / 1000 + " s (delivery.api.request-deadline)"));
            } else if (elapsedMillis > graceMillis
                    && body.length() < minBytesPerSecond * (elapsedMillis - graceMillis) / 1000) {
                fail(new AwsApiException("RequestTimeoutException", 408, "the request's body arrived at less than "
                        + minBytesPerSecond + " bytes a second (delivery.api.min-body-rate)"));
            }
        }

        private void fail(AwsApiException e) {
            refused = true;
            ctx.vertx().cancelTimer(timer);
            refuse(ctx, wire, e);
        }

        /** The whole request arrived: the endpoint checks the signature and serves it on a worker thread. */
        private void whole() {
            ctx.vertx().cancelTimer(timer);
            if (refused) {
                return;
            }
            ReceivedRequest received = asReceived(request, body.getBytes());
            ctx.vertx().executeBlocking(() -> endpoint.call(received), false).onComplete(done -> {
                Answer answer = done.succeeded() ? done.result()
                        : Answer.error(wire, new AwsApiException("InternalFailure", 500, "internal error"));
                HttpServerResponse response = ctx.response();
                if (response.closed() || response.ended()) {
                    return;
                }
                response.setStatusCode(answer.status()).putHeader(HttpHeaders.CONTENT_TYPE, answer.contentType());
                if (answer.errorType() != null) {
                    response.putHeader(AwsWire.ERROR_TYPE_HEADER, answer.errorType());
                }
                response.end(Buffer.buffer(answer.body()));
            });
        }
    }

    /** The declared length; -1 when none is (a chunked body), {@link Long#MAX_VALUE} when it is not a number. */
    private static long declaredLength(HttpServerRequest request) {
        String declared = request.getHeader(HttpHeaders.CONTENT_LENGTH);
        try {
            return declared == null ? -1 : Long.parseLong(declared.strip());
        } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }

    private AwsApiException tooLarge() {
        return new AwsApiException("RequestEntityTooLargeException", 413, "a request body is at most " + maxBody
                + " bytes (quarkus.http.limits.max-body-size)");
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

    /**
     * Answers {@code e} at once. Whatever of the body is still on its way is not read: an HTTP/1 connection is closed
     * once the answer is out, an HTTP/2 stream reset (the connection's other streams go on).
     */
    private static void refuse(RoutingContext ctx, AwsWire wire, AwsApiException e) {
        HttpServerRequest request = ctx.request();
        HttpServerResponse response = ctx.response();
        boolean http1 = request.version() != HttpVersion.HTTP_2;
        boolean unread = !request.isEnded();
        if (response.headWritten()) {
            request.connection().close();
            return;
        }
        response.setStatusCode(e.status()).putHeader(HttpHeaders.CONTENT_TYPE, wire.contentType())
                .putHeader(AwsWire.ERROR_TYPE_HEADER, e.type());
        if (http1 && unread) {
            response.putHeader(HttpHeaders.CONNECTION, HttpHeaders.CLOSE);
        }
        response.end(Buffer.buffer(wire.errorBody(e))).onComplete(sent -> {
            if (unread && http1) {
                request.connection().close();
            } else if (unread) {
                try {
                    response.reset(0); // NO_ERROR: the answer is complete, send no more of the body (RFC 9113 8.1)
                } catch (IllegalStateException closed) {
                    // the client reset the stream first
                }
            }
        });
    }
}
