package io.streamtables.registry;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

/**
 * Deletes the SQLite test database ({@code delivery.database-url} of the test application.properties) before the
 * first application of this test JVM starts, so each run starts from an empty registry and the start-up import is
 * really exercised. Once per JVM (a system property, since Quarkus may load this class anew per restart): a later
 * restart keeps what earlier tests stored.
 */
public class FreshTestDatabase implements QuarkusTestResourceLifecycleManager {

    private static final String DONE = "io.streamtables.registry.fresh-test-database";

    @Override
    public Map<String, String> start() {
        if (System.getProperty(DONE) == null) {
            System.setProperty(DONE, "true");
            String url = databaseUrl();
            if (url != null && url.startsWith("jdbc:sqlite:target/")) {
                String file = url.substring("jdbc:sqlite:".length());
                try {
                    for (String suffix : new String[] {"", "-journal", "-wal", "-shm"}) {
                        Files.deleteIfExists(Path.of(file + suffix));
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException("Cannot delete the test database " + file, e);
                }
            }
        }
        return Map.of();
    }

    @Override
    public void stop() {
    }

    private static String databaseUrl() {
        try (InputStream in = FreshTestDatabase.class.getResourceAsStream("/application.properties")) {
            if (in == null) {
                return null;
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("delivery.database-url");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
