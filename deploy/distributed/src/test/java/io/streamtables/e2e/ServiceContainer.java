package io.streamtables.e2e;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.ContainerLaunchException;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.output.OutputFrame;
import org.testcontainers.containers.wait.strategy.AbstractWaitStrategy;
import org.testcontainers.utility.DockerImageName;

/**
 * A service's container image started by Testcontainers (through the Docker API that DOCKER_HOST names; on the build
 * machine podman's, see scripts/containers.sh) on the host's network: its ports are the ones its settings give, its
 * {@code config/} directory is mounted read-only where the image reads it, its output is appended to a log file, and
 * it counts as started once {@code /q/health/live} answers 200 on its management port.
 */
final class ServiceContainer implements AutoCloseable {

    private final GenericContainer<?> container;
    private final String name;
    private final Path log;

    ServiceContainer(String image, String name, Map<String, String> environment, Path config, String mountedAt,
            String managementUrl, Path log) {
        this.name = name;
        this.log = log;
        container = new GenericContainer<>(DockerImageName.parse(image))
                .withNetworkMode("host")
                .withEnv(environment)
                .withFileSystemBind(config.toString(), mountedAt, BindMode.READ_ONLY)
                .withCreateContainerCmdModifier(create -> create.withName(name))
                .withLogConsumer(this::append)
                .waitingFor(new Live(managementUrl).withStartupTimeout(Duration.ofSeconds(180)));
    }

    /** Starts the container (a leftover of the same name, from a killed test JVM, removed first); returns when live. */
    ServiceContainer start() {
        try {
            client().removeContainerCmd(name).withForce(true).exec();
        } catch (NotFoundException none) {
            // the usual case
        }
        try {
            container.start();
        } catch (RuntimeException e) {
            close(); // not left running: without Ryuk nothing else removes it
            throw new IllegalStateException(name + " did not start: " + e.getMessage() + "; log:\n" + tail(), e);
        }
        return this;
    }

    boolean running() {
        return container.isRunning();
    }

    /** A signal to the container's main process (KILL, STOP, CONT), as `docker kill --signal` sends it. */
    void signal(String signal) {
        client().killContainerCmd(container.getContainerId()).withSignal(signal).exec();
    }

    /** SIGKILL, then the container removed. */
    void kill() {
        signal("KILL");
        container.stop();
    }

    /** SIGTERM with 20 s to exit (as a container runtime stops it), then the container removed. */
    @Override
    public void close() {
        if (container.getContainerId() == null) {
            return;
        }
        try {
            if (container.isRunning()) {
                client().stopContainerCmd(container.getContainerId()).withTimeout(20).exec();
            }
        } catch (RuntimeException e) {
            System.err.println(name + ": " + e.getMessage());
        }
        container.stop();
    }

    private static DockerClient client() {
        return DockerClientFactory.instance().client();
    }

    private void append(OutputFrame frame) {
        byte[] bytes = frame.getBytes();
        if (bytes == null) {
            return;
        }
        try {
            Files.write(log, bytes, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String tail() {
        try {
            var lines = Files.exists(log) ? Files.readAllLines(log) : java.util.List.<String>of();
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return e.toString();
        }
    }

    /**
     * Live when {@code /q/health/live} answers 200. On the host's network no port is mapped, so Testcontainers'
     * own HTTP wait (which asks for the mapped port) does not apply: the URL is asked as it is.
     */
    private static final class Live extends AbstractWaitStrategy {
        private final String managementUrl;

        Live(String managementUrl) {
            this.managementUrl = managementUrl;
        }

        @Override
        protected void waitUntilReady() {
            long deadline = System.nanoTime() + startupTimeout.toNanos();
            while (System.nanoTime() < deadline) {
                if (!waitStrategyTarget.isRunning()) {
                    throw new ContainerLaunchException("the container exited");
                }
                try {
                    HttpURLConnection c = (HttpURLConnection) URI.create(managementUrl + "/q/health/live").toURL()
                            .openConnection();
                    c.setConnectTimeout(500);
                    c.setReadTimeout(5_000);
                    if (c.getResponseCode() == 200) {
                        return;
                    }
                } catch (IOException notYet) {
                    // starting
                }
                try {
                    TimeUnit.MILLISECONDS.sleep(250);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new ContainerLaunchException("interrupted");
                }
            }
            throw new ContainerLaunchException("not live in " + startupTimeout.toSeconds() + " s");
        }
    }
}
