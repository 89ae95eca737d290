package io.streamtables.tasks;

import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * The one way periodic work runs here: a task on a daemon thread of its own, named for it, run again and again
 * until its service stops it, and never stopped by a failure. A {@link ScheduledExecutorService} cancels every later
 * run of a task that once throws, silently: the commit ticker died so when the service database was unreachable for a
 * moment, and its channels' shards were never committed again while the process looked healthy. A run that never ends
 * (a call a silent peer never answers) stops its task the same way: {@link #longestRun} shows it to the liveness
 * check. A thread per task: a slow task (reading the channels) never delays another (renewing the leases).
 */
public final class Repeating {

    /** A run under way: what it is, and since when. */
    public record Run(String what, long startedNanos) {
        public Duration elapsed() {
            return Duration.ofNanos(System.nanoTime() - startedNanos);
        }
    }

    /** The runs under way, by their task (a key per scheduled task: two tasks may share a name). */
    private static final Map<Object, Run> RUNNING = new ConcurrentHashMap<>();

    private final ScheduledExecutorService thread;

    private Repeating(String threadName) {
        this.thread = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named(threadName));
    }

    /**
     * Runs {@code task} on a thread named {@code threadName} with {@code delayMillis} between the end of a run and the
     * start of the next, the first after {@code initialMillis}.
     */
    public static Repeating withDelay(String threadName, long initialMillis, long delayMillis, Logger log, String what,
            Runnable task) {
        Repeating repeating = new Repeating(threadName);
        repeating.thread.scheduleWithFixedDelay(guarded(log, what, task), initialMillis, delayMillis,
                TimeUnit.MILLISECONDS);
        return repeating;
    }

    /**
     * Runs {@code task} on a thread named {@code threadName} every {@code periodMillis}, the first after
     * {@code initialMillis}.
     */
    public static Repeating atRate(String threadName, long initialMillis, long periodMillis, Logger log, String what,
            Runnable task) {
        Repeating repeating = new Repeating(threadName);
        repeating.thread.scheduleAtFixedRate(guarded(log, what, task), initialMillis, periodMillis,
                TimeUnit.MILLISECONDS);
        return repeating;
    }

    /** No run after this one; the run under way is interrupted. */
    public void stop() {
        thread.shutdownNow();
    }

    /**
     * No run after this one; the run under way may end within {@code waitMillis}.
     *
     * @return whether it ended (or none was under way)
     */
    public boolean stop(long waitMillis) throws InterruptedException {
        thread.shutdown();
        return thread.awaitTermination(waitMillis, TimeUnit.MILLISECONDS);
    }

    /** The run under way that started first, if any. */
    public static Optional<Run> longestRun() {
        return RUNNING.values().stream().min(Comparator.comparingLong(Run::startedNanos));
    }

    private static Runnable guarded(Logger log, String what, Runnable task) {
        return () -> {
            try {
                watched(what, task);
            } catch (RuntimeException | Error e) { // an Error too: a dead task is worse than one more try
                log.errorf(e, "%s failed; it runs again", what);
            }
        };
    }

    /**
     * Runs {@code task} once, shown to the liveness check while it runs as a repeating task's run is: for the steps a
     * task hands to a pool of its own (a commit that a silent catalog never answers holds a worker, not the tick).
     */
    public static void watched(String what, Runnable task) {
        Object key = new Object();
        RUNNING.put(key, new Run(what, System.nanoTime()));
        try {
            task.run();
        } finally {
            RUNNING.remove(key);
        }
    }
}
