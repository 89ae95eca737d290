package io.streamtables.management;

import io.netty.util.NetUtil;
import io.quarkus.vertx.http.ManagementInterface;
import io.streamtables.config.ManagementPortConfig;
import io.vertx.core.net.HostAndPort;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The management port answers only a request that names it by an address (IPv4, or IPv6 in brackets),
 * {@code localhost} or one of {@code delivery.management.host-names}, whatever the port. Any other, and one with no
 * Host or a malformed one, is answered 421 with no body, and not logged. Against DNS rebinding: a hostile page
 * whose name its owner makes resolve to 127.0.0.1 gets a browser on an operator's machine to send requests here,
 * same-origin for the browser, but they name the page's host. An address cannot be rebound, so a scraper or a probe
 * that reaches a pod by its address is answered. Ahead of every route of the management router, Quarkus's health
 * and metrics included.
 */
@ApplicationScoped
public class ManagementHosts {

    /** Before every other route, whoever adds it and when: Vert.x runs a router's routes by their order. */
    private static final int ORDER = Integer.MIN_VALUE;
    /** Misdirected Request: this server does not answer for that host. */
    private static final int REFUSED = 421;

    private final Set<String> names;

    ManagementHosts(ManagementPortConfig config) {
        this.names = config.hostNames().orElse(List.of()).stream().map(ManagementHosts::lowerCase)
                .collect(Collectors.toUnmodifiableSet());
    }

    /**
     * As a handler and as a failure handler: Vert.x's router fails an HTTP/1.1 request whose Host is missing or no
     * authority (400) before any route, and Quarkus's error handler would answer it with the error and log it.
     */
    void register(@Observes ManagementInterface management) {
        management.router().route().order(ORDER).handler(this::admit).failureHandler(this::admit);
    }

    private void admit(RoutingContext ctx) {
        HostAndPort named = ctx.request().authority();
        if (named != null && answers(named.host())) {
            ctx.next();
        } else {
            ctx.response().setStatusCode(REFUSED).end();
        }
    }

    /** Whether a request naming this host (no port) is answered. */
    boolean answers(String host) {
        String h = lowerCase(host);
        if (h.startsWith("[") && h.endsWith("]")) {
            return NetUtil.isValidIpV6Address(h.substring(1, h.length() - 1));
        }
        return NetUtil.isValidIpV4Address(h) || h.equals("localhost") || names.contains(h);
    }

    private static String lowerCase(String name) {
        return name.strip().toLowerCase(Locale.ROOT);
    }
}
