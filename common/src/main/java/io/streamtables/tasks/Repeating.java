package io.streamtables.tasks;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * A task run again and again that no failure stops. A {@link ScheduledExecutorService} cancels every later run of a
 * task that once throws, silently: the commit ticker died so when the service database was unreachable for a moment,
 * and its channels' shards were never committed again while the process looked healthy.
 */
public final class Repeating {

    private Repeating() {
    }

    /** Runs {@code task} with {@code delayMillis} between runs, the first after {@code initialMillis}. */
    public static ScheduledFuture<?> withDelay(ScheduledExecutorService executor, long initialMillis, long delayMillis,
            Logger log, String what, Runnable task) {
        return executor.scheduleWithFixedDelay(guarded(log, what, task), initialMillis, delayMillis,
                TimeUnit.MILLISECONDS);
    }

    /** Runs {@code task} every {@code periodMillis}, the first after {@code initialMillis}. */
    public static ScheduledFuture<?> atRate(ScheduledExecutorService executor, long initialMillis, long periodMillis,
            Logger log, String what, Runnable task) {
        return executor.scheduleAtFixedRate(guarded(log, what, task), initialMillis, periodMillis,
                TimeUnit.MILLISECONDS);
    }

    static Runnable guarded(Logger log, String what, Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException | Error e) { // an Error too: a dead task is worse than one more try
                log.errorf(e, "%s failed; it runs again", what);
            }
        };
    }
}
