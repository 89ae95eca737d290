package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.introspect.Annotated;
import com.fasterxml.jackson.databind.introspect.JacksonAnnotationIntrospector;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * deploy/k8s and deploy/compose read as their tools read them, so that a mistake fails the build and not a user's
 * {@code kubectl apply}: every Kubernetes document is bound to Kubernetes' own model (fabric8) with unknown fields
 * refused, and what one file names another must define; compose.yaml (merge keys resolved by SnakeYAML) must pin
 * its images and give each service what its configuration file asks for. Both name the images the build makes
 * (pom.xml's quarkus.container-image.* and quarkus.jib.*) and mount config/ where those images read it.
 */
class DeployFilesTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().resolve("../..").normalize();
    private static final Path K8S = ROOT.resolve("deploy/k8s");
    private static final Path COMPOSE = ROOT.resolve("deploy/compose");
    /** The services a deployment runs: the module, and the Deployment or compose service of that name. */
    private static final List<String> SERVICES =
            List.of("control-plane", "ingest-service", "convert-service", "commit-service", "dlq-service");
    /** The images' working directory, where the files mount config/ (the build's quarkus.jib.working-directory). */
    private static final String IMAGE_WORKDIR = ImageSettings.workingDirectory();
    /** The API versions these files are written for, by kind. */
    private static final Map<String, KindOf> KINDS = Map.of(
            "Deployment", new KindOf("apps/v1", Deployment.class),
            "Service", new KindOf("v1", Service.class),
            "ConfigMap", new KindOf("v1", ConfigMap.class),
            "Secret", new KindOf("v1", Secret.class),
            "HorizontalPodAutoscaler", new KindOf("autoscaling/v2", HorizontalPodAutoscaler.class),
            "NetworkPolicy", new KindOf("networking.k8s.io/v1", NetworkPolicy.class));
    /** A reference in a property value to another property or an environment variable, without a default. */
    private static final Pattern EXPRESSION = Pattern.compile("\\$\\{([^}:]+)}");
    /** The fabric8 model keeps unknown fields in a map (@JsonAnySetter); without that, Jackson refuses them. */
    private static final ObjectMapper STRICT = new ObjectMapper(new YAMLFactory())
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true)
            .setAnnotationIntrospector(new JacksonAnnotationIntrospector() {
                @Override
                public Boolean hasAnySetter(Annotated a) {
                    return Boolean.FALSE;
                }
            });

    private record KindOf(String apiVersion, Class<? extends HasMetadata> type) {
    }

    @Test
    void anUnknownFieldIsRefused() {
        String typo = """
                apiVersion: v1
                kind: Service
                metadata: {name: s}
                spec:
                  selector: {app: s}
                  ports: [{port: 80, targetPrt: http}]
                """;
        UnrecognizedPropertyException e = assertThrows(UnrecognizedPropertyException.class, () -> parse(typo));
        assertEquals("targetPrt", e.getPropertyName());
    }

    @Test
    void everyServiceHasADeploymentAServiceAndAnAutoscaler() throws IOException {
        List<HasMetadata> all = manifests();
        for (String service : SERVICES) {
            Deployment deployment = named(all, Deployment.class, service);
            assertEquals(service, deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getName());
            assertEquals(ImageSettings.image(service),
                    deployment.getSpec().getTemplate().getSpec().getContainers().get(0).getImage());
            named(all, Service.class, service);
            HorizontalPodAutoscaler hpa = named(all, HorizontalPodAutoscaler.class, service);
            assertEquals("Deployment", hpa.getSpec().getScaleTargetRef().getKind());
            assertEquals(service, hpa.getSpec().getScaleTargetRef().getName());
        }
    }

    @Test
    void everyServiceSelectsItsPodsAndPort() throws IOException {
        List<HasMetadata> all = manifests();
        for (Service service : of(all, Service.class)) {
            Deployment deployment = named(all, Deployment.class, service.getMetadata().getName());
            Map<String, String> podLabels = deployment.getSpec().getTemplate().getMetadata().getLabels();
            assertTrue(podLabels.entrySet().containsAll(service.getSpec().getSelector().entrySet()),
                    service.getMetadata().getName() + " selects no pod of its Deployment");
            assertTrue(podLabels.entrySet().containsAll(deployment.getSpec().getSelector().getMatchLabels().entrySet()),
                    deployment.getMetadata().getName() + "'s selector does not match its own pods");
            Container container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
            service.getSpec().getPorts().forEach(port -> assertTrue(container.getPorts().stream()
                    .anyMatch(p -> port.getTargetPort().getStrVal().equals(p.getName())), port.toString()));
            int http = containerPort(container, "http");
            assertEquals(Integer.toString(http), env(container, "QUARKUS_HTTP_PORT"),
                    container.getName() + " listens where its port says");
            int management = containerPort(container, "management");
            assertEquals(Integer.toString(management), env(container, "QUARKUS_MANAGEMENT_PORT"),
                    container.getName() + " serves health where its management port says");
            assertTrue(service.getSpec().getPorts().stream().noneMatch(p -> p.getTargetPort().getStrVal()
                    .equals("management")), service.getMetadata().getName() + " exposes health and metrics");
        }
    }

    @Test
    void probesAskQuarkusHealthWithRealisticTimeouts() throws IOException {
        for (Deployment deployment : of(manifests(), Deployment.class)) {
            Container c = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
            String name = c.getName();
            probe(name, "startup", c.getStartupProbe(), "/q/health/started");
            probe(name, "liveness", c.getLivenessProbe(), "/q/health/live");
            probe(name, "readiness", c.getReadinessProbe(), "/q/health/ready");
            // readiness asks the peers, each bounded by the pool's 10 s acquisition timeout: answer before that
            assertTrue(c.getReadinessProbe().getTimeoutSeconds() > 10, name + " readiness times out first");
            // the kubelet probes the pod's address, which a management port on loopback (the default) never hears
            assertFalse(onLoopback(c), name + " probes a management port bound to loopback");
        }
    }

    /**
     * A pod whose management port is bound beyond loopback (health, metrics, and the console, which shows every
     * account's channels) is selected by a NetworkPolicy: it admits the management port only from the peers it
     * names, and at least from one (the scraper), while the API port stays open to every caller.
     */
    @Test
    void aManagementPortBeyondLoopbackIsOpenOnlyToWhatANetworkPolicyAdmits() throws IOException {
        List<HasMetadata> all = manifests();
        List<NetworkPolicy> policies = of(all, NetworkPolicy.class);
        assertFalse(policies.isEmpty(), "deploy/k8s has no NetworkPolicy");
        for (Deployment deployment : of(all, Deployment.class)) {
            Container c = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
            if (onLoopback(c)) {
                continue;
            }
            Map<String, String> labels = deployment.getSpec().getTemplate().getMetadata().getLabels();
            List<NetworkPolicyIngressRule> rules = policies.stream()
                    .filter(p -> (p.getSpec().getPolicyTypes().isEmpty() || p.getSpec().getPolicyTypes().contains("Ingress"))
                            && selects(p.getSpec().getPodSelector(), labels))
                    .flatMap(p -> p.getSpec().getIngress().stream()).toList();
            String name = c.getName() + " (management port on " + env(c, "QUARKUS_MANAGEMENT_HOST") + ")";
            assertFalse(rules.isEmpty(), name + ": no NetworkPolicy selects its pods");
            List<NetworkPolicyIngressRule> management = rules.stream()
                    .filter(r -> admits(r, "management", containerPort(c, "management"))).toList();
            assertFalse(management.isEmpty(), name + ": no rule admits the scraper to the management port");
            for (NetworkPolicyIngressRule rule : management) {
                assertFalse(rule.getFrom().isEmpty(), name + ": a rule admits anyone to the management port: " + rule);
                for (NetworkPolicyPeer peer : rule.getFrom()) {
                    assertTrue(peer.getIpBlock() == null && peer.getPodSelector() != null,
                            name + ": the management port admits addresses or whole namespaces: " + peer);
                }
            }
            assertTrue(rules.stream().anyMatch(r -> r.getFrom().isEmpty() && admits(r, "http", containerPort(c, "http"))),
                    name + ": the policy closes the API port");
        }
    }

    /** Whether the container's management port is bound to loopback: QUARKUS_MANAGEMENT_HOST, else the default. */
    private static boolean onLoopback(Container c) {
        String host = env(c, "QUARKUS_MANAGEMENT_HOST");
        return host == null || host.equals("localhost") || host.startsWith("127.") || host.equals("::1");
    }

    /** Whether a rule admits this port, named or numbered; a rule without ports admits every port. */
    private static boolean admits(NetworkPolicyIngressRule rule, String name, int number) {
        return rule.getPorts().isEmpty() || rule.getPorts().stream().anyMatch(p -> p.getPort() == null
                || name.equals(p.getPort().getStrVal()) || p.getPort().getIntVal() != null
                && p.getPort().getIntVal() <= number
                && number <= (p.getEndPort() == null ? p.getPort().getIntVal() : p.getEndPort()));
    }

    private static boolean selects(LabelSelector selector, Map<String, String> labels) {
        assertTrue(selector.getMatchExpressions().isEmpty(), "these files select pods by matchLabels only");
        return labels.entrySet().containsAll(selector.getMatchLabels().entrySet());
    }

    private static int containerPort(Container c, String name) {
        return c.getPorts().stream().filter(p -> name.equals(p.getName())).findFirst().orElseThrow().getContainerPort();
    }

    private static void probe(String container, String kind, Probe probe, String path) {
        assertNotNull(probe, container + " has no " + kind + " probe");
        assertEquals(path, probe.getHttpGet().getPath(), container + " " + kind);
        assertEquals("management", probe.getHttpGet().getPort().getStrVal(), container + " " + kind);
        // Kubernetes' default 1 s fails a JVM in a collection pause on a busy node
        assertTrue(probe.getTimeoutSeconds() != null && probe.getTimeoutSeconds() >= 5,
                container + " " + kind + " probe timeout " + probe.getTimeoutSeconds());
    }

    /** Every ${NAME} of the ConfigMap's properties is an environment variable of each pod that mounts it. */
    @Test
    void everyPodHasTheConfigurationAndSecretsItReads() throws IOException {
        List<HasMetadata> all = manifests();
        for (Deployment deployment : of(all, Deployment.class)) {
            var pod = deployment.getSpec().getTemplate().getSpec();
            Container c = pod.getContainers().get(0);
            Set<String> environment = new HashSet<>();
            c.getEnv().stream().map(EnvVar::getName).forEach(environment::add);
            for (EnvFromSource from : c.getEnvFrom()) {
                assertNotNull(from.getSecretRef(), c.getName() + ": environment from Secrets only");
                Secret secret = named(all, Secret.class, from.getSecretRef().getName());
                assertTrue(secret.getData() == null || secret.getData().isEmpty(), secret.getMetadata().getName() + ": placeholders in stringData");
                environment.addAll(secret.getStringData().keySet());
            }
            assertEquals(1, pod.getVolumes().size(), c.getName());
            ConfigMap config = named(all, ConfigMap.class, pod.getVolumes().get(0).getConfigMap().getName());
            assertEquals(IMAGE_WORKDIR + "/config", c.getVolumeMounts().get(0).getMountPath(), c.getName());
            Properties properties = properties(config.getData().get("application.properties"));
            Set<String> missing = unresolved(properties, environment);
            assertTrue(missing.isEmpty(), c.getName() + " lacks " + missing);
            assertFalse(properties.getProperty("delivery.database-url").contains("password"),
                    "the database password belongs in the Secret");
        }
    }

    @Test
    void composePinsItsImagesAndGivesEachServiceWhatItsConfigurationReads() throws IOException {
        Map<String, Object> compose = new Yaml().load(Files.readString(COMPOSE.resolve("compose.yaml")));
        Map<String, Map<String, Object>> services = cast(compose.get("services"));
        services.forEach((name, service) -> {
            if (!SERVICES.contains(name)) {
                String image = (String) service.get("image");
                assertTrue(image.matches("[^:]+:[0-9][\\w.-]*"), name + ": pin the image's version: " + image);
            }
        });
        Properties config = properties(Files.readString(COMPOSE.resolve("config/application.properties")));
        Set<String> ports = new HashSet<>();
        for (String name : SERVICES) {
            Map<String, Object> service = services.get(name);
            assertNotNull(service, "compose.yaml has no " + name);
            assertEquals(ImageSettings.image(name), service.get("image"), name);
            Map<String, Object> environment = cast(service.get("environment"));
            assertTrue(ports.add(String.valueOf(environment.get("QUARKUS_HTTP_PORT"))), name + ": a port of its own");
            Set<String> missing = unresolved(config, environment.keySet());
            assertTrue(missing.isEmpty(), name + " lacks " + missing);
            List<String> volumes = cast(service.get("volumes"));
            assertTrue(volumes.contains("./config/application.properties:" + IMAGE_WORKDIR
                    + "/config/application.properties:ro"),
                    name + " reads the shared configuration");
        }
        // S3Proxy's filesystem stores answer 501 to SSE headers (tried on 4.1.0): the services must not send them
        Map<String, Object> s3 = cast(services.get("s3").get("environment"));
        if (String.valueOf(s3.get("JCLOUDS_PROVIDER")).startsWith("filesystem")) {
            assertEquals("false", config.getProperty("delivery.encryption.sse-headers"));
        }
        // the broker takes the largest message the services send
        Map<String, Object> kafka = cast(services.get("kafka").get("environment"));
        Properties bus = properties(Files.readString(
                ROOT.resolve("bus-kafka/src/main/resources/META-INF/microprofile-config.properties")));
        long maxRequest = Long.parseLong(bus.getProperty("mp.messaging.connector.smallrye-kafka.max.request.size"));
        assertTrue(Long.parseLong(String.valueOf(kafka.get("KAFKA_MESSAGE_MAX_BYTES"))) >= maxRequest);
    }

    /** The ${NAME} references of these properties that are neither properties nor in this environment. */
    private static Set<String> unresolved(Properties properties, Set<String> environment) {
        Set<String> missing = new TreeSet<>();
        for (String value : properties.stringPropertyNames().stream().map(properties::getProperty).toList()) {
            Matcher m = EXPRESSION.matcher(value);
            while (m.find()) {
                if (!environment.contains(m.group(1)) && properties.getProperty(m.group(1)) == null) {
                    missing.add(m.group(1));
                }
            }
        }
        return missing;
    }

    private static List<HasMetadata> manifests() throws IOException {
        List<HasMetadata> all = new ArrayList<>();
        try (Stream<Path> files = Files.list(K8S)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
                for (String document : Files.readString(file).split("(?m)^---\\s*$")) {
                    all.add(parse(document));
                }
            }
        }
        assertFalse(all.isEmpty());
        return all;
    }

    private static HasMetadata parse(String document) throws IOException {
        JsonNode tree = STRICT.readTree(document);
        String kind = tree.path("kind").asText();
        KindOf expected = KINDS.get(kind);
        assertNotNull(expected, "a kind these files do not use: " + kind);
        assertEquals(expected.apiVersion(), tree.path("apiVersion").asText(), kind);
        return STRICT.treeToValue(tree, expected.type());
    }

    private static <T extends HasMetadata> List<T> of(List<HasMetadata> all, Class<T> type) {
        return all.stream().filter(type::isInstance).map(type::cast).toList();
    }

    private static <T extends HasMetadata> T named(List<HasMetadata> all, Class<T> type, String name) {
        List<T> found = of(all, type).stream().filter(r -> r.getMetadata().getName().equals(name)).toList();
        assertEquals(1, found.size(), "one " + type.getSimpleName() + " named " + name);
        return found.get(0);
    }

    private static String env(Container container, String name) {
        return container.getEnv().stream().filter(e -> e.getName().equals(name)).map(EnvVar::getValue).findFirst()
                .orElse(null);
    }

    private static Properties properties(String text) throws IOException {
        Properties properties = new Properties();
        properties.load(new StringReader(text));
        return properties;
    }

    @SuppressWarnings("unchecked")
    private static <T> T cast(Object o) {
        return (T) o;
    }

}
