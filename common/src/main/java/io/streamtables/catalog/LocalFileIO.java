package io.streamtables.catalog;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.FileVisitResult;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
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
        // fold "//" and "./", and the orphan cleanup compares the two); a file deleted while the walk runs (an old
        // metadata file a commit removes) is skipped, not a failure
        String base = prefix.endsWith("/") ? prefix : prefix + "/";
        List<FileInfo> files = new ArrayList<>();
        try {
            java.nio.file.Files.walkFileTree(folder, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                    if (attributes.isRegularFile()) {
                        files.add(new FileInfo(base + folder.relativize(file).toString().replace(File.separatorChar,
                                '/'), attributes.size(), attributes.lastModifiedTime().toMillis()));
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) {
                    if (e instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE;
                    }
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
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

    static File file(String path) {
        return path.startsWith("file:") ? new File(URI.create(path)) : new File(path);
    }
}
