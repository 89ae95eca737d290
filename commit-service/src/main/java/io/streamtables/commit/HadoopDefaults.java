package io.streamtables.commit;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLConnection;
import java.net.URLStreamHandler;
import java.nio.charset.StandardCharsets;

/**
 * Iceberg builds a Hadoop {@code Configuration} for each Parquet file it opens for writing (it copies one only for
 * Hadoop's own output files, which ours are not), and each one parses Hadoop's default resources from the class path
 * anew: {@code core-default.xml}, and the MapReduce and YARN defaults ({@code mapred-default.xml},
 * {@code yarn-default.xml}: 300 KB of XML more) once a class loaded in the process has registered them. Hadoop reopens
 * the 20 MB jar that holds them each time, without the JAR cache, which would take most of the commit stage's time
 * on the distributed services. Writers opened
 * within {@link #run} find {@code core-default.xml} read once, in memory, and every other {@code *-default.xml} empty:
 * a Parquet writer reads no key of MapReduce's, YARN's or HDFS's. The {@code *-site.xml} overrides are looked up as
 * Hadoop does. Only the thread's context class loader changes, for the length of the call; every other class and resource
 * comes from the loader it had.
 */
final class HadoopDefaults {

    static final String RESOURCE = "core-default.xml";
    private static final byte[] EMPTY = "<configuration></configuration>".getBytes(StandardCharsets.UTF_8);

    /** The last loader made, for the context loader it wraps: one in production, a new one after a dev-mode reload. */
    private static volatile Serving last;

    private HadoopDefaults() {
    }

    /** Runs {@code action} with Hadoop's default resources served from memory. */
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

    /** Delegates everything to its parent but Hadoop's default resources, which it answers from memory. */
    static final class Serving extends ClassLoader {
        private final URL core;
        private final URL empty;

        Serving(ClassLoader parent, byte[] core) {
            super(parent);
            this.core = inMemory(RESOURCE, core);
            this.empty = inMemory("empty-default.xml", EMPTY);
        }

        @Override
        public URL getResource(String name) {
            if (RESOURCE.equals(name)) {
                return core;
            }
            return name.endsWith("-default.xml") && name.indexOf('/') < 0 ? empty : super.getResource(name);
        }

        private static URL inMemory(String name, byte[] bytes) {
            try {
                return new URL(null, "memory:" + name, new URLStreamHandler() {
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
    }
}
