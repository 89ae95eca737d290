package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.DataFormat;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The deployment files run: the control plane and the four stages start as processes with the settings that
 * deploy/compose and deploy/k8s give them, read from those files (compose: each service's environment and the shared
 * config/application.properties; Kubernetes: the ConfigMap's application.properties, the Secret and each container's
 * env), and a channel created through the API delivers; compose's commit stage runs scaled to two. The test changes
 * only what a container network or a cloud provides: host names (kafka, postgres, s3, control-plane) become the local
 * peers' addresses and each process gets a free HTTP port; for Kubernetes, whose files leave the store and the stream
 * to the user's AWS account, the endpoints of the local stand-ins and the pod identity's keys are added. A key renamed
 * in the code, a secret the files do not pass or a setting the services refuse fails here. With
 * {@code -Dstages.images} (scripts/containers.sh) each service is its container image, started by Testcontainers
 * ({@link ServiceContainer}, through podman's Docker-compatible API there) on the host's network (the free ports keep
 * them apart); the third test plays the Kubernetes manifests with podman's own {@code kube play}.
 */
class DeploymentFilesIT {

    private static final Path ROOT = Path.of(System.getProperty("project.root", "../..")).toAbsolutePath();
    private static final Pattern COMPOSE_VARIABLE = Pattern.compile("\\$\\{(\\w+)(?::-([^}]*)|:\\?[^}]*)}");
    /** What the user sets before deploying, as the files ask: the API's keys, which the test's clients sign with. */
    private static final Map<String, String> USER_SETS = Map.of(
            "STREAMTABLES_ACCESS_KEY_ID", Peers.KEY, "STREAMTABLES_SECRET_ACCESS_KEY", Peers.SECRET);
    /** The environment of the S3Proxy image as its entry point passes it on (S3Proxy's run-docker-container.sh). */
    private static final Map<String, String> S3PROXY_SETTINGS = Map.of(
            "S3PROXY_ENDPOINT", "s3proxy.endpoint",
            "S3PROXY_AUTHORIZATION", "s3proxy.authorization",
            "S3PROXY_IDENTITY", "s3proxy.identity",
            "S3PROXY_CREDENTIAL", "s3proxy.credential",
            "S3PROXY_IGNORE_UNKNOWN_HEADERS", "s3proxy.ignore-unknown-headers",
            "JCLOUDS_PROVIDER", "jclouds.provider",
            "JCLOUDS_FILESYSTEM_BASEDIR", "jclouds.filesystem.basedir");
    private static final List<String> STAGES = List.of("ingest", "convert", "commit", "dlq");
    private static final List<String> K8S_SERVICES = List.of("control-plane", "ingest", "convert", "commit", "dlq");
    private static final Path K8S = ROOT.resolve("deploy/k8s");

    private String database;

    @BeforeEach
    void peers() {
        // .ci/run builds the images, then runs these on them (scripts/containers.sh built): the same files and checks
        Assumptions.assumeFalse(StageProcess.IMAGES.isBlank() && Boolean.getBoolean("it.deployment-files.on-images"),
                "-Dit.deployment-files.on-images: these run on the images once they are built");
        Assumptions.assumeTrue(Peers.postgresAnswers(), "no PostgreSQL answers at " + Peers.POSTGRES);
        FaultRig.assertKafkaAnswers(FaultRig.KAFKA);
    }

    @Test
    void composeSettingsDeliver() throws Exception {
        Path compose = ROOT.resolve("deploy/compose");
        Map<String, Map<String, Object>> services = new Yaml().<Map<String, Map<String, Map<String, Object>>>>load(
                Files.readString(compose.resolve("compose.yaml"))).get("services");
        Map<String, String> db = environment(services.get("postgres"));
        String databaseUrl = createDatabase(db.get("POSTGRES_USER"), db.get("POSTGRES_PASSWORD"));
        try (DeliveryFixture fixture = new DeliveryFixture("compose", DeliveryFixture.CatalogKind.POSTGRES, 10);
                S3ProxyProcess s3 = S3ProxyProcess.start(fixture.workDir, services.get("s3"))) {
            String config = Files.readString(compose.resolve("config/application.properties"))
                    .replace("kafka:9092", FaultRig.KAFKA)
                    .replace("jdbc:postgresql://postgres:5432/delivery", databaseUrl)
                    .replace("http://s3:80", s3.endpoint)
                    // the file's own instructions for kinesis-local
                    .replaceAll("(?m)^#(delivery\\.kinesis\\.)", "$1")
                    .replace("http://host.docker.internal:4568", Peers.KINESIS);
            Properties settings = properties(config);
            try (S3Client store = s3.client()) {
                store.createBucket(r -> r.bucket(URI.create(settings.getProperty("delivery.catalog.warehouse")).getHost()));
                fixture.deadLettersIn(s3.client());
            }
            catalogOf(fixture, settings, environment(services.get("commit-service")));
            try (Services running = new Services(fixture.workDir)) {
                running.start("control-plane", environment(services.get("control-plane")), config);
                for (String stage : STAGES) {
                    running.start(stage, environment(services.get(stage + "-service")), config);
                }
                // as compose.yaml suggests, `up --scale commit-service=2`: two share the rows topic's partitions
                running.start("commit", "commit-2", environment(services.get("commit-service")), config);
                DeliveryFixture.Summary summary = deliver(fixture, running,
                        Integer.parseInt(settings.getProperty("delivery.min-data-freshness-seconds")));
                // which instance committed depends on who held the rows' partitions when: together, each row once
                double delivered = 0;
                for (String commit : List.of("commit-1", "commit-2")) {
                    double rows = running.process(commit).metric("delivery_records_delivered_total");
                    System.out.printf("%s delivered %.0f rows%n", commit, rows);
                    delivered += Double.isNaN(rows) ? 0 : rows;
                }
                assertEquals(summary.rows(), (long) delivered, "rows the two commit instances say they delivered");
            }
        } finally {
            FaultRig.dropDatabase(database);
        }
    }

    @Test
    void kubernetesSettingsDeliver() throws Exception {
        kubernetes((fixture, settings, secrets) -> {
            // the pod identity's keys, as the AWS SDK's default chain finds them
            Map<String, String> identity = Map.of("AWS_ACCESS_KEY_ID", Peers.KEY, "AWS_SECRET_ACCESS_KEY", Peers.SECRET);
            try (Services running = new Services(fixture.workDir)) {
                for (String service : K8S_SERVICES) {
                    JsonNode container = document(K8S.resolve(manifest(service)), "Deployment")
                            .path("spec").path("template").path("spec").path("containers").get(0);
                    Map<String, String> environment = new LinkedHashMap<>(identity);
                    container.path("env").forEach(e -> environment.put(e.path("name").asText(), e.path("value").asText()));
                    container.path("envFrom").forEach(from -> {
                        assertEquals("streamtables-credentials", from.path("secretRef").path("name").asText());
                        environment.putAll(secrets);
                    });
                    running.start(service, environment, settings);
                }
                deliver(fixture, running, 2);
            }
        });
    }

    /** The manifests themselves, each Deployment's pod run by {@code podman kube play} from the services' images. */
    @Test
    void kubernetesManifestsRunAsPods() throws Exception {
        Assumptions.assumeTrue(!StageProcess.IMAGES.isBlank(), "the images are not built: scripts/containers.sh runs this");
        kubernetes((fixture, settings, secrets) -> {
            try (Pods pods = new Pods(fixture.workDir, secrets)) {
                for (String service : K8S_SERVICES) {
                    pods.play(K8S.resolve(manifest(service)), settings);
                }
                deliver(fixture, pods, 2);
            }
        });
    }

    private interface KubernetesRun {
        void run(DeliveryFixture fixture, String settings, Map<String, String> secrets) throws Exception;
    }

    /**
     * The ConfigMap's application.properties pointed at the local peers (and the stand-ins of what the user's AWS
     * account provides), the Secret's values with the placeholders replaced, a database of the files' user.
     */
    private void kubernetes(KubernetesRun run) throws Exception {
        String config = document(K8S.resolve("config.yaml"), "ConfigMap").path("data").path("application.properties")
                .asText();
        Map<String, String> secrets = new LinkedHashMap<>();
        document(K8S.resolve("secret.yaml"), "Secret").path("stringData").fields()
                .forEachRemaining(e -> secrets.put(e.getKey(), e.getValue().asText()));
        secrets.putAll(USER_SETS); // the placeholders replaced, as the Secret's comment asks
        String databaseUrl = createDatabase(properties(config).getProperty("delivery.database-user"),
                secrets.get("DATABASE_PASSWORD"));
        try (DeliveryFixture fixture = new DeliveryFixture("k8s", DeliveryFixture.CatalogKind.POSTGRES, 2)) {
            String warehouse = URI.create(properties(config).getProperty("delivery.catalog.warehouse")).getHost();
            String settings = config
                    .replace("kafka:9092", FaultRig.KAFKA)
                    .replace("jdbc:postgresql://postgres:5432/delivery", databaseUrl)
                    .replace("s3://" + warehouse + "/", "s3://" + fixture.warehouseBucket + "/")
                    // what the user's AWS account provides, here its local stand-ins
                    + "delivery.kinesis.endpoint-override=" + Peers.KINESIS + "\n"
                    + "delivery.kms.describe-keys=false\n"
                    + "delivery.catalog.s3.endpoint=" + Peers.S3 + "\n"
                    + "delivery.catalog.s3.path-style-access=true\n"
                    + "quarkus.s3.endpoint-override=" + Peers.S3 + "\n"
                    + "quarkus.s3.path-style-access=true\n"
                    // and a run of seconds, not of the default floor's 5 minutes
                    + "delivery.min-data-freshness-seconds=2\n";
            catalogOf(fixture, properties(settings), secrets);
            run.run(fixture, settings, secrets);
        } finally {
            FaultRig.dropDatabase(database);
        }
    }

    private static String manifest(String service) {
        return (service.equals("control-plane") ? service : service + "-service") + ".yaml";
    }

    /** A channel through the API, its schema through the Glue API, records in; the table and the DLQ checked. */
    private static DeliveryFixture.Summary deliver(DeliveryFixture fixture, ServiceUnderTest running,
            int freshnessSeconds) throws Exception {
        try (GlueClient glue = GlueClient.builder().endpointOverride(URI.create(running.url()))
                .region(Region.of(Peers.REGION)).httpClientBuilder(UrlConnectionHttpClient.builder())
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(Peers.KEY, Peers.SECRET)))
                .build()) {
            glue.createRegistry(r -> r.registryName("registry"));
            glue.createSchema(r -> r.registryId(id -> id.registryName("registry")).schemaName("events")
                    .dataFormat(DataFormat.JSON).compatibility("NONE").schemaDefinition(Events.SCHEMA));
        }
        fixture.createChannel(running, freshnessSeconds);
        fixture.awaitActive(running);
        fixture.produce(new Events(11, 1).next(600, 30));
        fixture.awaitDelivered(240, running);
        DeliveryFixture.Summary summary = fixture.verify();
        System.out.printf("%s: %d rows, %d dead letters, %d commits%n", fixture.name, summary.rows(),
                summary.deadLetters(), summary.commits());
        assertEquals(600, summary.rows() + summary.deadLetters());
        assertTrue(summary.deadLetters() >= 10, "invalid records were sent: " + summary.deadLetters());
        return summary;
    }

    /** The fixture reads the table through the catalog the services were given. */
    private static void catalogOf(DeliveryFixture fixture, Properties settings, Map<String, String> environment) {
        fixture.catalogProperties.clear();
        settings.stringPropertyNames().stream().filter(k -> k.startsWith("delivery.catalog."))
                .forEach(k -> fixture.catalogProperties.put(k.substring("delivery.catalog.".length()),
                        resolve(settings.getProperty(k), environment)));
        // what the services add to every catalog on S3 (Catalogs.withDefaults), the Region and keys that the
        // services take from their environment
        fixture.catalogProperties.putIfAbsent("io-impl", "org.apache.iceberg.aws.s3.S3FileIO");
        fixture.catalogProperties.putIfAbsent("http-client.type", "urlconnection");
        fixture.catalogProperties.putIfAbsent("client.region", Peers.REGION);
        fixture.catalogProperties.putIfAbsent("s3.access-key-id", Peers.KEY);
        fixture.catalogProperties.putIfAbsent("s3.secret-access-key", Peers.SECRET);
    }

    /** A database of its own, owned by the files' database user (trust authentication takes any password). */
    private String createDatabase(String user, String password) throws SQLException {
        assertNotNull(user, "the files name the database user");
        database = FaultRig.databaseName("st_files");
        try (Connection c = DriverManager.getConnection(Peers.POSTGRES); Statement s = c.createStatement()) {
            try {
                s.execute("CREATE ROLE " + user + " LOGIN PASSWORD '" + password.replace("'", "''") + "'");
            } catch (SQLException exists) {
                // another run made it
            }
            s.execute("CREATE DATABASE " + database + " OWNER " + user);
        }
        URI server = URI.create(Peers.POSTGRES.substring("jdbc:".length()));
        return "jdbc:postgresql://" + server.getAuthority() + "/" + database;
    }

    /** A compose service's environment, ${NAME:-default} and ${NAME:?error} resolved as compose does. */
    private static Map<String, String> environment(Map<String, Object> service) {
        Map<String, String> environment = new LinkedHashMap<>();
        @SuppressWarnings("unchecked")
        Map<String, Object> declared = (Map<String, Object>) service.get("environment");
        declared.forEach((k, v) -> {
            Matcher m = COMPOSE_VARIABLE.matcher(String.valueOf(v));
            environment.put(k, !m.matches() ? String.valueOf(v) : USER_SETS.containsKey(m.group(1))
                    ? USER_SETS.get(m.group(1)) : System.getenv().getOrDefault(m.group(1), m.group(2)));
        });
        return environment;
    }

    /** ${NAME} of a property value from this environment. */
    private static String resolve(String value, Map<String, String> environment) {
        Matcher m = Pattern.compile("\\$\\{(\\w+)}").matcher(value);
        return m.replaceAll(r -> Matcher.quoteReplacement(environment.getOrDefault(r.group(1), r.group())));
    }

    private static JsonNode document(Path file, String kind) throws IOException {
        ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
        for (String document : Files.readString(file).split("(?m)^---\\s*$")) {
            JsonNode node = yaml.readTree(document);
            if (kind.equals(node.path("kind").asText())) {
                return node;
            }
        }
        throw new AssertionError("no " + kind + " in " + file);
    }

    private static Properties properties(String text) throws IOException {
        Properties p = new Properties();
        p.load(new StringReader(text));
        return p;
    }

    /** The control plane first (the others read schemas from it), each service ready before the test goes on. */
    private static final class Services implements ServiceUnderTest, AutoCloseable {
        private final Path workDir;
        private final List<StageProcess> processes = new ArrayList<>();
        private String controlPlane;

        Services(Path workDir) {
            this.workDir = workDir;
        }

        void start(String service, Map<String, String> environment, String config) throws Exception {
            start(service, service + "-1", environment, config);
        }

        void start(String service, String instance, Map<String, String> environment, String config) throws Exception {
            // the control plane reads schemas from its own registry
            StageProcess p = StageProcess.start(service, instance, workDir, Map.of(), environment,
                    self -> config.replace("http://control-plane:8080", controlPlane == null ? self : controlPlane));
            processes.add(p);
            p.awaitReady(120);
            if (service.equals("control-plane")) {
                controlPlane = p.url();
            }
        }

        StageProcess process(String instance) {
            return processes.stream().filter(p -> p.name.equals(instance)).findFirst().orElseThrow();
        }

        @Override
        public String url() {
            return controlPlane;
        }

        @Override
        public String tail() throws IOException {
            return StageProcess.tails(processes);
        }

        @Override
        public void close() throws InterruptedException {
            StageProcess.closeAll(processes);
        }
    }

    /** S3Proxy as compose's image runs it: the jar of the image's version, configured from the service's environment. */
    private static final class S3ProxyProcess implements AutoCloseable {
        final String endpoint;
        private final Map<String, String> keys;
        private final Process process;

        private S3ProxyProcess(String endpoint, Map<String, String> keys, Process process) {
            this.endpoint = endpoint;
            this.keys = keys;
            this.process = process;
        }

        static S3ProxyProcess start(Path workDir, Map<String, Object> service) throws Exception {
            String version = String.valueOf(service.get("image")).substring("andrewgaul/s3proxy:".length());
            Path jar = ROOT.resolve(".peers/s3proxy-" + version + "-jar-with-dependencies.jar");
            assertTrue(Files.exists(jar), jar + ": compose's S3Proxy version is the one scripts/peers.sh installs");
            String endpoint = "http://127.0.0.1:" + Ports.free();
            Properties settings = new Properties();
            environment(service).forEach((name, value) -> {
                String key = S3PROXY_SETTINGS.get(name);
                assertNotNull(key, "compose gives S3Proxy " + name + ", which this test does not translate");
                settings.setProperty(key, value);
            });
            settings.setProperty("s3proxy.endpoint", endpoint);
            Path volume = Files.createDirectories(workDir.resolve("s3-data"));
            settings.setProperty("jclouds.filesystem.basedir", volume.toString());
            Path file = workDir.resolve("s3proxy.properties");
            try (var out = Files.newBufferedWriter(file)) {
                settings.store(out, "from compose.yaml");
            }
            Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx256m", "-jar", jar.toString(), "--properties", file.toString())
                    .redirectErrorStream(true).redirectOutput(workDir.resolve("s3proxy.log").toFile()).start();
            S3ProxyProcess started = new S3ProxyProcess(endpoint,
                    Map.of("id", settings.getProperty("s3proxy.identity"), "secret",
                            settings.getProperty("s3proxy.credential")), process);
            try {
                started.awaitUp(workDir);
            } catch (Exception | AssertionError e) {
                started.close(); // not left running when it never came up
                throw e;
            }
            return started;
        }

        private void awaitUp(Path workDir) throws Exception {
            for (int i = 0; i < 240; i++) {
                try (S3Client s3 = client()) {
                    s3.listBuckets();
                    return;
                } catch (RuntimeException notYet) {
                    if (!process.isAlive()) {
                        break;
                    }
                    Thread.sleep(250);
                }
            }
            throw new IllegalStateException("S3Proxy did not start:\n" + Files.readString(workDir.resolve("s3proxy.log")));
        }

        S3Client client() {
            return S3Client.builder().endpointOverride(URI.create(endpoint)).region(Region.of(Peers.REGION))
                    .forcePathStyle(true).httpClientBuilder(UrlConnectionHttpClient.builder())
                    .credentialsProvider(StaticCredentialsProvider.create(
                            AwsBasicCredentials.create(keys.get("id"), keys.get("secret"))))
                    .build();
        }

        @Override
        public void close() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
