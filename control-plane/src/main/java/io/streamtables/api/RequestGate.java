package io.streamtables.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.runtime.configuration.MemorySize;
import io.quarkus.vertx.http.runtime.filters.Filters;
import io.streamtables.auth.SigV4Authenticator;
import io.streamtables.config.ApiLimits;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * What a request must show before its body is read (on the event loop, ahead of {@link AwsApiResource}): a target
 * this service serves and an Authorization header a principal could have sent ({@link SigV4Authenticator#checkHeaders}),
 * a share of the memory budget for bodies under way ({@link ApiLimits#bodyBudget}), and the whole request within
 * {@link ApiLimits#requestDeadline}. So a caller without a key costs a header's parse, and one with a key at most
 * its share of the budget for the deadline; every refusal is an AWS error in the request's encoding.
 */
@ApplicationScoped
public class RequestGate {

    /** Ahead of the routes, so before anything reads the body. */
    private static final int PRIORITY = 1_000;

    private final AwsApis apis;
    private final SigV4Authenticator authenticator;
    private final ObjectMapper json;
    private final long deadlineMillis;
    private final long maxBody;
    private final long budget;
    private final AtomicLong held = new AtomicLong();

    public RequestGate(AwsApis apis, SigV4Authenticator authenticator, ObjectMapper json, ApiLimits limits,
            @ConfigProperty(name = "quarkus.http.limits.max-body-size") MemorySize maxBody) {
        this.apis = apis;
        this.authenticator = authenticator;
        this.json = json;
        this.deadlineMillis = limits.requestDeadline().toMillis();
        this.maxBody = maxBody.asLongValue();
        this.budget = limits.bodyBudget().asLongValue();
    }

    void register(@Observes Filters filters) {
        filters.register(this::admit, PRIORITY);
    }

    private void admit(RoutingContext ctx) {
        HttpServerRequest request = ctx.request();
        if (request.method() != HttpMethod.POST || !"/".equals(request.path())) {
            ctx.next(); // not the API: Quarkus answers it (405, 404) without reading a body for us
            return;
        }
        AwsWire wire = AwsWire.of(request.getHeader(HttpHeaders.CONTENT_TYPE), json);
        try {
            String signingName = apis.route(request.getHeader("X-Amz-Target")).api().signingName();
            authenticator.checkHeaders(AwsApiResource.asReceived(request, null), signingName);
        } catch (AwsApiException e) {
            refuse(ctx, wire, e);
            return;
        }
        long share = share(request);
        if (!take(share)) {
            refuse(ctx, wire, new AwsApiException("ServiceUnavailableException", 503, "the service is receiving as "
                    + "many request bodies as it holds at once (delivery.api.body-budget): retry"));
            return;
        }
        long timer = ctx.vertx().setTimer(deadlineMillis, fired -> {
            if (!request.isEnded()) {
                refuse(ctx, wire, new AwsApiException("RequestTimeoutException", 408, "the request did not arrive "
                        + "whole within " + deadlineMillis / 1000 + " s (delivery.api.request-deadline)"));
            }
        });
        ctx.addEndHandler(done -> {
            ctx.vertx().cancelTimer(timer);
            held.addAndGet(-share);
        });
        ctx.next();
    }

    /** The declared length, or the largest body when none is declared; past the largest, Quarkus answers 413. */
    private long share(HttpServerRequest request) {
        try {
            String declared = request.getHeader(HttpHeaders.CONTENT_LENGTH);
            return declared == null ? maxBody : Math.min(Math.max(Long.parseLong(declared.strip()), 0), maxBody);
        } catch (NumberFormatException e) {
            return maxBody;
        }
    }

    private boolean take(long share) {
        long now;
        do {
            now = held.get();
            if (now + share > budget && share > 0) {
                return false;
            }
        } while (!held.compareAndSet(now, now + share));
        return true;
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
