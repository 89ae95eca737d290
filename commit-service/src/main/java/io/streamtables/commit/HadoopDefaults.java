package io.streamtables.commit;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLConnection;
import java.net.URLStreamHandler;

/**
 * Iceberg builds a Hadoop {@code Configuration} for each Parquet file it opens for writing (it copies one only for
 * Hadoop's own output files, which ours are not), and each one reads Hadoop's defaults, {@code core-default.xml}, from
 * the class path: Hadoop opens the 20 MB jar that holds them anew each time, without the JAR cache (3.5 ms a
 * {@code Configuration} here, file reads of 45–75 ms on a loaded machine; docs/BENCHMARKS.md). Writers opened within
 * {@link #run} find the same file read once, in memory (0.8–2 ms: its parse). Only the thread's context class loader
 * changes, for the length of the call; every other class and resource comes from the loader it had.
 */
final class HadoopDefaults {

    static final String RESOURCE = "core-default.xml";

    /** The last loader made, for the context loader it wraps: one in production, a new one after a dev-mode reload. */
    private static volatile Serving last;

    private HadoopDefaults() {
    }

    /** Runs {@code action} with Hadoop's defaults served from memory. */
    static void run(Runnable action) {
        Thread thread = Thread.currentThread();
        ClassLoader context = thread.getContextClassLoader();
        Serving serving = serving(context);
        if (serving == null) {
            action.run();
            return;
        }
        thread.setContextClassLoader(serving);
        try {
            action.run();
        } finally {
            thread.setContextClassLoader(context);
        }
    }

    /** The loader serving the defaults the {@code context} loader finds; null when it finds none. */
    private static Serving serving(ClassLoader context) {
        Serving s = last;
        if (s != null && s.getParent() == context) {
            return s;
        }
        if (context == null) {
            return null;
        }
        URL resource = context.getResource(RESOURCE);
        if (resource == null) {
            return null;
        }
        try (InputStream in = resource.openStream()) {
            s = new Serving(context, in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException("reading Hadoop's " + RESOURCE, e);
        }
        last = s;
        return s;
    }

    /** Delegates everything to its parent but {@link #RESOURCE}, which it answers from memory. */
    static final class Serving extends ClassLoader {
        private final URL defaults;

        Serving(ClassLoader parent, byte[] bytes) {
            super(parent);
            try {
                this.defaults = new URL(null, "memory:" + RESOURCE, new URLStreamHandler() {
                    @Override
                    protected URLConnection openConnection(URL url) {
                        return new URLConnection(url) {
                            @Override
                            public void connect() {
                            }

                            @Override
                            public InputStream getInputStream() {
                                return new ByteArrayInputStream(bytes);
                            }
                        };
                    }
                });
            } catch (MalformedURLException e) {
                throw new IllegalStateException(e);
            }
        }

        @Override
        public URL getResource(String name) {
            return RESOURCE.equals(name) ? defaults : super.getResource(name);
        }
    }
}
