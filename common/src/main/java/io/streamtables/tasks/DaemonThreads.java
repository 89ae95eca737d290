package io.streamtables.tasks;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Factories of daemon threads (they never hold a JVM up: each service stops its work in its own shutdown) named for
 * what they do, as thread dumps and log lines show them.
 */
public final class DaemonThreads {

    private DaemonThreads() {
    }

    /** Threads all named {@code name}, e.g. a scheduler's single thread. */
    public static ThreadFactory named(String name) {
        return r -> daemon(new Thread(r, name));
    }

    /** Threads named {@code prefix-1}, {@code prefix-2}, ... */
    public static ThreadFactory numbered(String prefix) {
        AtomicInteger ids = new AtomicInteger();
        return r -> daemon(new Thread(r, prefix + "-" + ids.incrementAndGet()));
    }

    private static Thread daemon(Thread t) {
        t.setDaemon(true);
        return t;
    }
}
