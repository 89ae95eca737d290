package io.streamtables.controlplane;

import io.quarkus.runtime.StartupEvent;
import io.streamtables.auth.SigV4Authenticator;
import io.streamtables.config.AuthConfig;
import io.streamtables.registry.ServedSchemaSource;
import io.streamtables.schema.SchemaRegistryConfig;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Open by choice, not by default: a service that serves the API refuses to start with no principal unless
 * {@code delivery.auth.mode=none} is set, and says so loudly when it is; and the stages' own schema lookups
 * against this very service must sign with a key it knows.
 */
@ApplicationScoped
class AuthStartupCheck {

    private static final Logger LOG = Logger.getLogger(AuthStartupCheck.class);

    void check(@Observes @Priority(Interceptor.Priority.PLATFORM_BEFORE) StartupEvent event, AuthConfig auth,
            SigV4Authenticator authenticator, SchemaRegistryConfig registry,
            @ConfigProperty(name = "quarkus.http.port") int port) {
        if (auth.mode() == AuthConfig.Mode.NONE) {
            LOG.warnf("delivery.auth.mode=none: the API on port %d (channels and schema registry) serves ANYONE who "
                    + "reaches it, unsigned. Configure principals (docs/OPERATING.md \"Authentication\") before this "
                    + "service is reachable from a network.", port);
            return;
        }
        if (authenticator.hasNoPrincipals()) {
            throw new IllegalStateException("No principal is configured, and every API request must be signed by one: "
                    + "set delivery.auth.principals.<name>.access-key-id, .secret-access-key and .account-id "
                    + "(docs/OPERATING.md \"Authentication\"), or set delivery.auth.mode=none to serve the API to "
                    + "anyone");
        }
        String lookupKey = registry.aws().credentials().type().equals("static")
                ? registry.aws().credentials().staticProvider().accessKeyId().orElse(null) : null;
        if (registry.source().equals("glue") && lookupKey != null
                && registry.endpointOverride().filter(e -> ServedSchemaSource.isThisService(e, port)).isPresent()
                && !authenticator.knows(lookupKey)) {
            throw new IllegalStateException("The stages' schema lookups (delivery.schema-registry.*) sign with access "
                    + "key " + lookupKey + ", which is no principal of this service: give them a principal's keys "
                    + "(the shipped configuration uses the principal named 'service')");
        }
    }
}
