package io.streamtables.controlplane;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;
import io.streamtables.auth.SigV4Authenticator;
import io.streamtables.config.AuthConfig;
import io.streamtables.config.DeliveryConfig;
import io.streamtables.schema.SchemaRegistryConfig;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Open by choice, not by default: what a service serving the API refuses to start with. */
class AuthStartupCheckTest {

    static final int PORT = 8080;
    static final Map<String, String> LOOKUPS_AS_SERVICE = Map.of(
            "delivery.schema-registry.endpoint-override", "http://127.0.0.1:" + PORT,
            "delivery.schema-registry.aws.credentials.type", "static",
            "delivery.schema-registry.aws.credentials.static-provider.access-key-id", "SERVICEKEY",
            "delivery.schema-registry.aws.credentials.static-provider.secret-access-key", "s");
    static final Map<String, String> SERVICE_PRINCIPAL = Map.of(
            "delivery.auth.principals.service.access-key-id", "SERVICEKEY",
            "delivery.auth.principals.service.secret-access-key", "s",
            "delivery.auth.principals.service.account-id", "000000000000");

    static void check(Map<String, String> settings) {
        Map<String, String> all = new HashMap<>(Map.of("delivery.database-url", "jdbc:sqlite:unused.db"));
        all.putAll(settings);
        SmallRyeConfig config = new SmallRyeConfigBuilder().withMapping(AuthConfig.class)
                .withMapping(DeliveryConfig.class).withMapping(SchemaRegistryConfig.class)
                .withSources(new PropertiesConfigSource(all, "test", 400)).build();
        AuthConfig auth = config.getConfigMapping(AuthConfig.class);
        new AuthStartupCheck().check(null, auth,
                new SigV4Authenticator(auth, config.getConfigMapping(DeliveryConfig.class)),
                config.getConfigMapping(SchemaRegistryConfig.class), PORT);
    }

    static Map<String, String> merged(Map<String, String> a, Map<String, String> b) {
        Map<String, String> m = new HashMap<>(a);
        m.putAll(b);
        return m;
    }

    @Test
    void noPrincipalRefusesToStartUnlessTheApiIsOpenByChoice() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> check(Map.of()));
        assertTrue(e.getMessage().contains("delivery.auth.principals.<name>.access-key-id"), e.getMessage());
        assertTrue(e.getMessage().contains("delivery.auth.mode=none"), e.getMessage());
        assertDoesNotThrow(() -> check(Map.of("delivery.auth.mode", "none")));
        assertDoesNotThrow(() -> check(SERVICE_PRINCIPAL));
    }

    @Test
    void theStagesLookupsMustSignWithAKeyThisServiceKnows() {
        assertDoesNotThrow(() -> check(merged(SERVICE_PRINCIPAL, LOOKUPS_AS_SERVICE)));
        Map<String, String> otherKey = merged(merged(SERVICE_PRINCIPAL, LOOKUPS_AS_SERVICE),
                Map.of("delivery.schema-registry.aws.credentials.static-provider.access-key-id", "anonymous"));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> check(otherKey));
        assertTrue(e.getMessage().contains("access key anonymous, which is no principal"), e.getMessage());
        // another registry (AWS Glue, another host) is not this service's to judge
        otherKey.put("delivery.schema-registry.endpoint-override", "http://127.0.0.1:" + (PORT + 1));
        assertDoesNotThrow(() -> check(otherKey));
    }
}
