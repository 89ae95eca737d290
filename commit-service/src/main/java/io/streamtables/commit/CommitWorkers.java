package io.streamtables.commit;

import io.streamtables.tasks.DaemonThreads;
import io.streamtables.tasks.Repeating;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The commit stage's fixed pool: the channels' cuts and commits run side by side, each channel's one at a time. One
 * thread committing every channel in turn made the last of a hundred cuts due at once wait seconds for the others.
 */
final class CommitWorkers {

    private final int threads;
    private final ExecutorService pool;
    private final Set<String> running = ConcurrentHashMap.newKeySet();

    CommitWorkers(int threads) {
        this.threads = threads;
        pool = Executors.newFixedThreadPool(threads, DaemonThreads.numbered("commit-worker"));
    }

    /** Whether a step of {@code key} is queued or under way. */
    boolean busy(String key) {
        return running.contains(key);
    }

    /**
     * Runs {@code step} on the pool unless a step of {@code key} is queued or under way, or the pool is shut down.
     *
     * @return whether the step was taken
     */
    boolean offer(String key, Runnable step) {
        if (!running.add(key)) {
            return false;
        }
        try {
            pool.execute(() -> {
                try {
                    Repeating.watched("The delivery step of " + key, step); // liveness sees a step that never ends
                } finally {
                    running.remove(key);
                }
            });
            return true;
        } catch (RejectedExecutionException stopping) {
            running.remove(key);
            return false;
        }
    }

    /** Takes no more steps, lets those taken end within {@code millis}; false when one did not. */
    boolean stop(long millis) throws InterruptedException {
        pool.shutdown();
        return pool.awaitTermination(millis, TimeUnit.MILLISECONDS);
    }

    /**
     * At shutdown, once {@link #stop stopped}: the channels' last steps, side by side on as many threads, until all
     * have ended (each keeps to the shutdown's deadline). One after another, at 40-80 ms a commit, a few hundred
     * channels' last commits filled the default shutdown timeout.
     */
    void finish(Collection<Runnable> lastSteps) throws InterruptedException {
        ExecutorService last = Executors.newFixedThreadPool(threads, DaemonThreads.numbered("commit-finish"));
        try {
            last.invokeAll(lastSteps.stream().map(Executors::callable).toList());
        } finally {
            last.shutdownNow();
        }
    }
}
