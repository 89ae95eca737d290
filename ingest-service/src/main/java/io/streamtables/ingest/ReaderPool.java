package io.streamtables.ingest;

import io.streamtables.tasks.DaemonThreads;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * A fixed number of threads that run every reader of this instance, whatever the number of channels and shards. A
 * reader is a sequence of steps (one listing of a stream, one GetRecords call of a shard), each of which says how
 * long until the next; between its steps a reader holds no thread, so idle channels cost no threads. The steps of one reader never overlap,
 * and each sees what the one before it wrote (the executor orders them).
 */
final class ReaderPool {

    private static final Logger LOG = Logger.getLogger(ReaderPool.class);

    /** What a step returns to end its reader; any negative number does. */
    static final long DONE = -1;

    /** One step of a reader. */
    interface Step {
        /** @return the milliseconds until the next step, or a negative number (such as {@link #DONE}) to end */
        long run() throws InterruptedException;
    }

    private final ScheduledThreadPoolExecutor threads;

    /** @param name the threads' prefix, numbered (bench/ThreadCpu counts the threads named {@code shard-}) */
    ReaderPool(int size, String name) {
        threads = new ScheduledThreadPoolExecutor(size, DaemonThreads.numbered(name));
        threads.setRemoveOnCancelPolicy(true);
    }

    /**
     * Runs {@code step} at once, then after each delay it returns, until it returns a negative number, throws, or
     * the reader is cancelled; then runs {@code whenDone} once. A step that throws is logged: its owner starts
     * the reader again (the stream's next listing, the next sync of the channels).
     */
    Reader start(String what, Step step, Runnable whenDone) {
        Reader reader = new Reader(what, step, whenDone);
        reader.schedule(0);
        return reader;
    }

    /** Stops every reader at once, interrupting the steps under way; their {@code whenDone} do not run. */
    void stop(long timeoutMillis) {
        threads.shutdownNow();
        try {
            threads.awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A reader started on the pool. */
    final class Reader implements Runnable {

        private final String what;
        private final Step step;
        private final Runnable whenDone;
        /** The run scheduled next, or the one under way. Guarded by this. */
        private Future<?> next;
        private boolean stepping;
        private boolean cancelled;
        private boolean done;

        private Reader(String what, Step step, Runnable whenDone) {
            this.what = what;
            this.step = step;
            this.whenDone = whenDone;
        }

        private synchronized void schedule(long delayMillis) {
            next = threads.schedule(this, delayMillis, TimeUnit.MILLISECONDS);
        }

        @Override
        public void run() {
            synchronized (this) {
                if (cancelled) {
                    return; // cancel() ended it
                }
                stepping = true;
            }
            long delay = DONE;
            try {
                delay = step.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // cancelled: the pool clears it before its next task
            } catch (RuntimeException e) {
                LOG.errorf(e, "%s stopped; it starts again", what);
            }
            synchronized (this) {
                stepping = false;
                if (delay >= 0 && !cancelled) {
                    schedule(delay);
                    return;
                }
                cancelled = true; // ending: a cancel() from now on has nothing to do
            }
            end();
        }

        /** Ends the reader: a step under way is interrupted and ends it when it returns. */
        void cancel() {
            synchronized (this) {
                if (cancelled) {
                    return;
                }
                cancelled = true;
                next.cancel(true);
                if (stepping) {
                    return;
                }
            }
            end();
        }

        /**
         * True once its last step returned (or it was cancelled between steps) and {@code whenDone} returned: the
         * owner starts the next reader of the same stream or shard on seeing it done, which must find the last one's
         * {@code whenDone} (releasing leases, forgetting the shard's reader) finished.
         */
        synchronized boolean isDone() {
            return done;
        }

        private void end() {
            try {
                whenDone.run();
            } finally {
                synchronized (this) {
                    done = true;
                }
            }
        }
    }
}
