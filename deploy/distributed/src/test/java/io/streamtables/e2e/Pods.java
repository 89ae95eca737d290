package io.streamtables.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kubernetes Deployments run by {@code podman kube play} from the services' images, one pod each, on the host's
 * network. What the test changes in a manifest is what a cluster provides and podman on the host's network does not:
 * the image's registry, a free port for each service (one network for all pods), no port declarations (podman refuses
 * them on the host's network) and probes on those ports; the Secret becomes a podman secret (podman 4.3 reads
 * {@code secretRef} from there, as a JSON map of base64 values), the pod identity's keys are added to the environment.
 */
final class Pods implements ServiceUnderTest, AutoCloseable {

    private static final YAMLMapper YAML = new YAMLMapper();
    private static final String SECRET = "streamtables-credentials";

    private final Path workDir;
    private final List<Path> played = new ArrayList<>();
    private final List<String> containers = new ArrayList<>();
    private String controlPlane;

    Pods(Path workDir, Map<String, String> secrets) throws Exception {
        this.workDir = workDir;
        Map<String, String> encoded = new LinkedHashMap<>();
        secrets.forEach((k, v) -> encoded.put(k, Base64.getEncoder().encodeToString(
                v.getBytes(StandardCharsets.UTF_8))));
        Path file = workDir.resolve("secret.json");
        Files.writeString(file, new ObjectMapper().writeValueAsString(encoded));
        podmanQuietly("secret", "rm", SECRET); // left by an earlier run that was killed
        podman("secret", "create", SECRET, file.toString());
    }

    /** Plays the manifest's Deployment with the ConfigMap's application.properties as {@code settings}; waits ready. */
    void play(Path manifest, String settings) throws Exception {
        ObjectNode deployment = deployment(manifest);
        String name = deployment.path("metadata").path("name").asText();
        ObjectNode container = (ObjectNode) deployment.path("spec").path("template").path("spec").path("containers")
                .get(0);
        int port = Ports.free();
        int managementPort = Ports.free();
        container.put("image", StageProcess.IMAGES + "/"
                + container.path("image").asText().replaceFirst("^streamtables/", ""));
        container.remove("ports");
        ArrayNode env = (ArrayNode) container.path("env");
        env.forEach(e -> {
            switch (e.path("name").asText()) {
                case "QUARKUS_HTTP_PORT" -> ((ObjectNode) e).put("value", Integer.toString(port));
                case "QUARKUS_MANAGEMENT_PORT" -> ((ObjectNode) e).put("value", Integer.toString(managementPort));
                default -> { }
            }
        });
        // the pod identity's keys, as the AWS SDK's default chain finds them
        env.addObject().put("name", "AWS_ACCESS_KEY_ID").put("value", Peers.KEY);
        env.addObject().put("name", "AWS_SECRET_ACCESS_KEY").put("value", Peers.SECRET);
        env.addObject().put("name", "JAVA_TOOL_OPTIONS").put("value", "-Xmx512m -XX:TieredStopAtLevel=1");
        for (String probe : List.of("startupProbe", "livenessProbe", "readinessProbe")) {
            if (container.path(probe).path("httpGet").isObject()) {
                ((ObjectNode) container.path(probe).path("httpGet")).put("port", managementPort);
            }
        }
        String url = "http://127.0.0.1:" + port;
        Path configMap = workDir.resolve(name + "-config.yaml");
        ObjectNode config = YAML.createObjectNode().put("apiVersion", "v1").put("kind", "ConfigMap");
        config.putObject("metadata").put("name", "streamtables-config");
        config.putObject("data").put("application.properties",
                settings.replace("http://control-plane:8080", controlPlane == null ? url : controlPlane));
        YAML.writeValue(configMap.toFile(), config);
        Path played = workDir.resolve(name + ".yaml");
        YAML.writeValue(played.toFile(), deployment);
        this.played.add(played); // taken down on close even when the play fails part way
        String answer = podman("kube", "play", "--network", "host", "--configmap", configMap.toString(),
                played.toString());
        // podman names the container after the pod, a name that changed between versions: its id, from the answer
        Matcher id = Pattern.compile("(?m)^Container:\\s*\\n([0-9a-f]{12,64})$").matcher(answer);
        if (!id.find()) {
            throw new IllegalStateException("podman kube play named no container:\n" + answer);
        }
        containers.add(id.group(1));
        awaitReady(id.group(1), "http://127.0.0.1:" + managementPort, 120);
        if (name.equals("control-plane")) {
            controlPlane = url;
        }
    }

    private static ObjectNode deployment(Path manifest) throws IOException {
        for (String document : Files.readString(manifest).split("(?m)^---\\s*$")) {
            JsonNode node = YAML.readTree(document);
            if ("Deployment".equals(node.path("kind").asText())) {
                return (ObjectNode) node;
            }
        }
        throw new AssertionError("no Deployment in " + manifest);
    }

    private void awaitReady(String container, String management, int seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            try {
                HttpURLConnection c = (HttpURLConnection) URI.create(management + "/q/health/ready").toURL()
                        .openConnection();
                c.setConnectTimeout(500);
                if (c.getResponseCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // starting
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException(container + " not ready in " + seconds + " s; log:\n" + logs(container));
    }

    private String logs(String container) throws IOException, InterruptedException {
        return podman("logs", "--tail", "40", container);
    }

    @Override
    public String url() {
        return controlPlane;
    }

    @Override
    public String tail() throws IOException {
        StringBuilder all = new StringBuilder();
        for (String container : containers) {
            try {
                all.append("--- ").append(container).append('\n').append(logs(container)).append('\n');
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return all.toString();
    }

    /** Each pod down (SIGTERM, as a cluster stops it), its log kept in the work directory; the secret removed. */
    @Override
    public void close() throws Exception {
        for (int i = played.size() - 1; i >= 0; i--) {
            String pod = played.get(i).getFileName().toString().replace(".yaml", "");
            if (i < containers.size()) {
                try {
                    Files.writeString(workDir.resolve(pod + ".log"), logs(containers.get(i)));
                } catch (IOException | IllegalStateException e) {
                    System.err.println(pod + ": no log: " + e.getMessage());
                }
            }
            podmanQuietly("kube", "down", played.get(i).toString());
        }
        podmanQuietly("secret", "rm", SECRET);
    }

    private static String podman(String... arguments) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("podman"));
        command.addAll(List.of(arguments));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed:\n" + output);
        }
        return output;
    }

    private static void podmanQuietly(String... arguments) throws InterruptedException {
        try {
            podman(arguments);
        } catch (IOException | IllegalStateException e) {
            // nothing to remove
        }
    }
}
