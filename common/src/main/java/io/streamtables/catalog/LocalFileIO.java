package io.streamtables.catalog;

import java.io.File;
import java.net.URI;
import org.apache.iceberg.Files;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * A warehouse on the local file system without Hadoop's FileSystem, which forks a {@code chmod} process for
 * every file it creates when Hadoop's native library is absent.
 */
public class LocalFileIO implements FileIO {

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

    static File file(String path) {
        return path.startsWith("file:") ? new File(URI.create(path)) : new File(path);
    }
}
