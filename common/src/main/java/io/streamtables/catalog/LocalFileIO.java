package io.streamtables.catalog;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.apache.iceberg.Files;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * A warehouse on the local file system without Hadoop's FileSystem, which forks a {@code chmod} process for
 * every file it creates when Hadoop's native library is absent.
 */
public class LocalFileIO implements SupportsPrefixOperations {

    @Override
    public InputFile newInputFile(String path) {
        return Files.localInput(file(path));
    }

    @Override
    public OutputFile newOutputFile(String path) {
        File file = file(path);
        File parent = file.getParentFile();
        if (parent != null && !parent.isDirectory() && !parent.mkdirs() && !parent.isDirectory()) {
            throw new IllegalStateException("Cannot create folder " + parent);
        }
        return Files.localOutput(file);
    }

    @Override
    public void deleteFile(String path) {
        File file = file(path);
        if (file.exists() && !file.delete()) {
            throw new IllegalStateException("Cannot delete " + file);
        }
    }

    /** The files under the prefix, a folder (the maintenance's orphan cleanup lists a table's). */
    @Override
    public Iterable<FileInfo> listPrefix(String prefix) {
        Path folder = file(prefix).toPath();
        if (!folder.toFile().isDirectory()) {
            return List.of();
        }
        // each location spelt from the prefix as given, as Iceberg spells the locations it writes (a Path would
        // fold "//" and "./", and the orphan cleanup compares the two)
        String base = prefix.endsWith("/") ? prefix : prefix + "/";
        try (Stream<Path> files = java.nio.file.Files.walk(folder)) {
            return files.filter(java.nio.file.Files::isRegularFile)
                    .map(p -> info(p, base + folder.relativize(p).toString().replace(File.separatorChar, '/')))
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void deletePrefix(String prefix) {
        Path folder = file(prefix).toPath();
        if (!folder.toFile().exists()) {
            return;
        }
        try (Stream<Path> files = java.nio.file.Files.walk(folder)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static FileInfo info(Path path, String location) {
        try {
            BasicFileAttributes a = java.nio.file.Files.readAttributes(path, BasicFileAttributes.class);
            return new FileInfo(location, a.size(), a.lastModifiedTime().toMillis());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static File file(String path) {
        return path.startsWith("file:") ? new File(URI.create(path)) : new File(path);
    }
}
