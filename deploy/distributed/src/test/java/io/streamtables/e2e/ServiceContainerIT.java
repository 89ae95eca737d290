package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.dockerjava.api.exception.NotFoundException;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.DockerClientFactory;

/**
 * One image started by Testcontainers ({@link ServiceContainer}), as the container runs of {@link DeploymentFilesIT}
 * start theirs: the all-in-one image, needing no peer, live on its management port, its console served, its output
 * in the log, and gone once closed. Runs with {@code -Dstages.images} (scripts/containers.sh).
 */
class ServiceContainerIT {

    @Test
    void allInOneImageStartsLiveThroughTestcontainers(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(!StageProcess.IMAGES.isBlank(), "the images are not built: scripts/containers.sh runs this");
        Path config = Files.createDirectories(dir.resolve("config"));
        Files.writeString(config.resolve("application.properties"), "");
        int port = Ports.free();
        int managementPort = Ports.free();
        String management = "http://127.0.0.1:" + managementPort;
        Path log = dir.resolve("all-in-one.log");
        String name = "st-testcontainers-all-in-one";
        try (ServiceContainer container = new ServiceContainer(StageProcess.IMAGES + "/all-in-one:" + ImageSettings.tag(),
                name, Map.of("QUARKUS_HTTP_PORT", Integer.toString(port),
                        "QUARKUS_MANAGEMENT_PORT", Integer.toString(managementPort),
                        "DELIVERY_AUTH_PRINCIPALS_SERVICE_ACCESS_KEY_ID", "AKIDCONTAINERSCHECK",
                        "DELIVERY_AUTH_PRINCIPALS_SERVICE_SECRET_ACCESS_KEY", "containers-check-secret",
                        "DELIVERY_AUTH_PRINCIPALS_SERVICE_ACCOUNT_ID", "111111111111",
                        "JAVA_TOOL_OPTIONS", "-Xmx256m -XX:TieredStopAtLevel=1"),
                config, ImageSettings.workingDirectory() + "/config", management, log)) {
            container.start(); // returns once /q/health/live answered 200
            assertTrue(container.running());
            assertEquals(200, status(management + "/q/health/live"));
            assertEquals(200, status(management + "/console"));
            // health answers before Quarkus prints its start line, and the output reaches the log a moment later
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!Files.readString(log).contains("started in") && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            assertTrue(Files.readString(log).contains("started in"), "the container's output is in the log:\n"
                    + Files.readString(log));
        }
        assertThrows(NotFoundException.class,
                () -> DockerClientFactory.instance().client().inspectContainerCmd(name).exec(), "removed once closed");
    }

    private static int status(String url) throws IOException {
        HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
        c.setConnectTimeout(1_000);
        c.setReadTimeout(10_000);
        return c.getResponseCode();
    }
}
