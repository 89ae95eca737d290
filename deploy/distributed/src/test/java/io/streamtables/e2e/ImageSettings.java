package io.streamtables.e2e;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The images the build makes, as pom.xml sets them ({@code quarkus.container-image.*}, {@code quarkus.jib.*}): the
 * deployment files must name them so, and the container runs start them so.
 */
final class ImageSettings {

    private static final Path POM = Path.of(System.getProperty("project.root", "../..")).toAbsolutePath()
            .resolve("pom.xml");

    private ImageSettings() {
    }

    /** The images' working directory, where the services read config/. */
    static String workingDirectory() {
        return property("quarkus.jib.working-directory");
    }

    static String tag() {
        return property("quarkus.container-image.tag");
    }

    /** {@code <quarkus.container-image.group>/<module>:<tag>}. */
    static String image(String module) {
        return property("quarkus.container-image.group") + "/" + module + ":" + tag();
    }

    private static String property(String name) {
        try {
            Matcher m = Pattern.compile("<" + Pattern.quote(name) + ">([^<]+)</").matcher(Files.readString(POM));
            if (!m.find()) {
                throw new IllegalStateException("pom.xml does not set " + name);
            }
            return m.group(1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
