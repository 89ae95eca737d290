package io.streamtables.state;

import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Assumptions;

/**
 * Instances of a stage started at once on a new PostgreSQL database (the local server's, or {@code POSTGRES_URL}):
 * each round creates a database, starts the instances on it together, checks them, closes them and drops it.
 * Skipped when no PostgreSQL answers.
 */
public final class NewDatabaseRace {

    public static final String POSTGRES = System.getenv().getOrDefault("POSTGRES_URL",
            "jdbc:postgresql://127.0.0.1:5432/test?user=postgres");

    /** What an instance does at start-up on the database of that JDBC URL. */
    public interface Start<T> {
        T start(String url) throws Exception;
    }

    /** What the started instances must see together (they share one database). */
    public interface Check<T> {
        void check(List<T> started) throws Exception;
    }

    private NewDatabaseRace() {
    }

    /** Rethrows the first start-up that failed. */
    public static <T extends AutoCloseable> void run(int rounds, int instances, Start<T> start, Check<T> check)
            throws Exception {
        try (Connection c = DriverManager.getConnection(POSTGRES)) {
            Assumptions.assumeTrue(c.isValid(3));
        } catch (SQLException e) {
            Assumptions.abort("no PostgreSQL answers at " + POSTGRES + ": " + e.getMessage());
        }
        ExecutorService threads = Executors.newFixedThreadPool(instances);
        try {
            for (int round = 0; round < rounds; round++) {
                String database = "race_" + Long.toString(System.nanoTime(), 36);
                execute("CREATE DATABASE " + database);
                String url = databaseUrl(database);
                CyclicBarrier together = new CyclicBarrier(instances);
                List<Future<T>> starts = new ArrayList<>();
                for (int i = 0; i < instances; i++) {
                    starts.add(threads.submit(() -> {
                        together.await();
                        return start.start(url);
                    }));
                }
                List<T> started = new ArrayList<>();
                try {
                    Exception failed = null;
                    for (Future<T> f : starts) {
                        try {
                            started.add(f.get());
                        } catch (java.util.concurrent.ExecutionException e) {
                            failed = failed == null ? (Exception) e.getCause() : failed;
                        }
                    }
                    if (failed != null) {
                        throw failed;
                    }
                    check.check(started);
                } finally {
                    for (T t : started) {
                        t.close();
                    }
                    execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
                }
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private static String databaseUrl(String database) {
        URI server = URI.create(POSTGRES.substring("jdbc:".length()));
        return "jdbc:postgresql://" + server.getAuthority() + "/" + database
                + (server.getRawQuery() == null ? "" : "?" + server.getRawQuery());
    }

    private static void execute(String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(POSTGRES); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
