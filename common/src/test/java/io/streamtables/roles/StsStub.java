package io.streamtables.roles;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * STS's AssumeRole on the AWS Query protocol (a form POST answered in XML), as the official {@code StsClient}
 * speaks it: STS cannot run here. Every call is recorded with the key that signed it; each grant is a session
 * with the key pair given here and a fresh session token, valid for {@link #lifetime(Duration)}.
 */
public final class StsStub implements AutoCloseable {

    /** One AssumeRole call: its parameters, the access key id that signed it, and the token it granted. */
    public record Call(Map<String, String> parameters, String signedBy, String sessionToken) {

        public String roleArn() {
            return parameters.get("RoleArn");
        }

        public String sessionName() {
            return parameters.get("RoleSessionName");
        }
    }

    private static final Pattern CREDENTIAL = Pattern.compile("Credential=([^/]+)/");

    private final HttpServer server;
    private final String accessKeyId;
    private final String secretAccessKey;
    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final Set<String> refused = ConcurrentHashMap.newKeySet();
    private volatile Duration lifetime = Duration.ofHours(1);
    private volatile boolean keyRefused;

    /** Grants sessions with this key pair (the one store the tests sign for) and a new token each time. */
    public StsStub(String accessKeyId, String secretAccessKey) throws IOException {
        this.accessKeyId = accessKeyId;
        this.secretAccessKey = secretAccessKey;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** AssumeRole of this role is refused with AccessDenied, as when its trust policy does not name the caller. */
    public void refuse(String roleArn) {
        refused.add(roleArn);
    }

    /** Every call is refused with InvalidClientTokenId, as when the caller's own key is wrong or expired. */
    public void refuseCallerKey() {
        keyRefused = true;
    }

    /** AssumeRole of this role is granted again. */
    public void trust(String roleArn) {
        refused.remove(roleArn);
    }

    /** How long the sessions granted from now on last. */
    public void lifetime(Duration lifetime) {
        this.lifetime = lifetime;
    }

    public List<Call> calls() {
        return List.copyOf(calls);
    }

    /** The session tokens granted to a session name. */
    public Set<String> tokens(String sessionName) {
        return calls.stream().filter(c -> sessionName.equals(c.sessionName()) && c.sessionToken() != null)
                .map(Call::sessionToken).collect(Collectors.toUnmodifiableSet());
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            Map<String, String> form = form(new String(exchange.getRequestBody().readAllBytes(),
                    StandardCharsets.UTF_8));
            String authorization = exchange.getRequestHeaders().getFirst("Authorization");
            Matcher signer = CREDENTIAL.matcher(authorization == null ? "" : authorization);
            String signedBy = signer.find() ? signer.group(1) : null;
            if (!"AssumeRole".equals(form.get("Action"))) {
                calls.add(new Call(form, signedBy, null));
                answer(exchange, 400, error("InvalidAction", "Could not find operation " + form.get("Action")));
            } else if (signedBy == null) {
                calls.add(new Call(form, null, null));
                answer(exchange, 403, error("MissingAuthenticationToken", "Request is missing Authentication Token"));
            } else if (keyRefused) {
                calls.add(new Call(form, signedBy, null));
                answer(exchange, 403, error("InvalidClientTokenId", "The security token included in the request is "
                        + "invalid."));
            } else if (refused.contains(form.get("RoleArn"))) {
                calls.add(new Call(form, signedBy, null));
                answer(exchange, 403, error("AccessDenied", "User: " + signedBy + " is not authorized to perform: "
                        + "sts:AssumeRole on resource: " + form.get("RoleArn")));
            } else {
                String token = "session-" + UUID.randomUUID();
                calls.add(new Call(form, signedBy, token));
                answer(exchange, 200, granted(form, token));
            }
        }
    }

    private String granted(Map<String, String> form, String token) {
        String role = form.get("RoleArn");
        String account = role.split(":")[4];
        String roleName = role.substring(role.lastIndexOf('/') + 1);
        Instant expiration = Instant.now().plus(lifetime).truncatedTo(ChronoUnit.SECONDS);
        return "<AssumeRoleResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><AssumeRoleResult>"
                + "<Credentials><AccessKeyId>" + accessKeyId + "</AccessKeyId><SecretAccessKey>" + secretAccessKey
                + "</SecretAccessKey><SessionToken>" + token + "</SessionToken><Expiration>" + expiration
                + "</Expiration></Credentials><AssumedRoleUser><AssumedRoleId>AROASTUB:" + form.get("RoleSessionName")
                + "</AssumedRoleId><Arn>arn:aws:sts::" + account + ":assumed-role/" + roleName + "/"
                + form.get("RoleSessionName") + "</Arn></AssumedRoleUser></AssumeRoleResult><ResponseMetadata>"
                + "<RequestId>" + UUID.randomUUID() + "</RequestId></ResponseMetadata></AssumeRoleResponse>";
    }

    private static String error(String code, String message) {
        return "<ErrorResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><Error><Type>Sender</Type><Code>"
                + code + "</Code><Message>" + message + "</Message></Error><RequestId>" + UUID.randomUUID()
                + "</RequestId></ErrorResponse>";
    }

    private static void answer(HttpExchange exchange, int status, String xml) throws IOException {
        byte[] body = xml.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/xml");
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    private static Map<String, String> form(String body) {
        Map<String, String> form = new TreeMap<>();
        for (String pair : body.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                form.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                        URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
            }
        }
        return form;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
