package io.streamtables.state;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** SQLite, the default database of the service and of the catalog, creates its file but not its folder. */
public final class Sqlite {

    private Sqlite() {
    }

    /** Creates the folder of a {@code jdbc:sqlite:FILE} URL; any other URL is left alone. */
    public static void createFolder(String jdbcUrl) {
        if (!jdbcUrl.startsWith("jdbc:sqlite:") || jdbcUrl.contains(":memory:")) {
            return;
        }
        Path parent = Path.of(jdbcUrl.substring("jdbc:sqlite:".length())).toAbsolutePath().getParent();
        try {
            Files.createDirectories(parent);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create the folder of " + jdbcUrl, e);
        }
    }
}
