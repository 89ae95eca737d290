package io.streamtables.e2e;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;

/**
 * What an exploration runs against: the all-in-one ({@link #ALL_IN_ONE}), or the services as separate processes
 * (deploy/distributed's {@code ExploreDeployment}). The kill and pause steps name no process: a target of several
 * picks one with the run's seeded random.
 */
interface ExploreTarget extends ServiceUnderTest, AutoCloseable {

    /** kill -9 of a process, started again at once; which one. */
    String kill(Random random) throws Exception;

    /** SIGSTOP of a process for {@code seconds}, then SIGCONT; which one. */
    String pause(Random random, int seconds) throws Exception;

    /** The whole log of every process. */
    String log() throws IOException;

    /** How a run gets a catalog and a target of this kind, each a world of its own. */
    interface Kind {
        /** The JDBC URL of a new, empty catalog for one run. */
        String newCatalog(Path workDir) throws Exception;

        /** Started with the run's configuration (the catalog's URL in {@code delivery.catalog.uri}). */
        ExploreTarget start(Path workDir, Map<String, String> config) throws Exception;

        /** After the run, what {@link #newCatalog} made and the target did not own. */
        default void dropCatalog(String uri) {
        }
    }

    /** One all-in-one: a JDBC catalog in a SQLite file of the run's. */
    Kind ALL_IN_ONE = new Kind() {
        @Override
        public String newCatalog(Path workDir) {
            return "jdbc:sqlite:" + workDir.resolve("catalog.db");
        }

        @Override
        public ExploreTarget start(Path workDir, Map<String, String> config) throws Exception {
            AllInOneProcess app = new AllInOneProcess(workDir, config).start();
            return new ExploreTarget() {
                @Override
                public String kill(Random random) throws Exception {
                    app.kill();
                    app.start();
                    return "the all-in-one";
                }

                @Override
                public String pause(Random random, int seconds) throws Exception {
                    app.pause(seconds);
                    return "the all-in-one";
                }

                @Override
                public String log() throws IOException {
                    return app.log();
                }

                @Override
                public String url() {
                    return app.url();
                }

                @Override
                public String tail() throws IOException {
                    return app.tail();
                }

                @Override
                public void close() throws Exception {
                    app.close();
                }
            };
        }
    };
}
