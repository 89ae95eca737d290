package io.streamtables.watermarks;

import io.streamtables.tasks.DaemonThreads;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The threads a commit reads and writes its manifests on, owned by the service that commits and shut down after its
 * last commit. Not Iceberg's shared worker pool: a JVM shutdown hook of Iceberg's shuts that down as soon as SIGTERM
 * comes, and the commit at shutdown still needs threads.
 */
public record ManifestWorkers(ExecutorService executor, int threads) implements AutoCloseable {

    public static ManifestWorkers start(int threads) {
        return new ManifestWorkers(Executors.newFixedThreadPool(threads, DaemonThreads.numbered("commit-manifests")),
                threads);
    }

    /** After the last commit: what was handed over still runs, nothing new is taken. */
    @Override
    public void close() {
        executor.shutdown();
    }
}
