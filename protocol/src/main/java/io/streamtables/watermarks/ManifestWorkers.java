package io.streamtables.watermarks;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads a commit reads and writes its manifests on, owned by the service that commits and shut down after its
 * last commit. Not Iceberg's shared worker pool: a JVM shutdown hook of Iceberg's shuts that down as soon as SIGTERM
 * comes, and the commit at shutdown still needs threads.
 */
public record ManifestWorkers(ExecutorService executor, int threads) implements AutoCloseable {

    /** {@code threads} daemon threads named {@code commit-manifests-N}. */
    public static ManifestWorkers start(int threads) {
        AtomicInteger ids = new AtomicInteger();
        return new ManifestWorkers(Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "commit-manifests-" + ids.incrementAndGet());
            t.setDaemon(true); // never holds the JVM up: the service stops its commits in its own shutdown
            return t;
        }), threads);
    }

    /** After the last commit: what was handed over still runs, nothing new is taken. */
    @Override
    public void close() {
        executor.shutdown();
    }
}
