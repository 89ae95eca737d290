package io.streamtables.state;

import io.streamtables.tasks.Backoff;
import java.sql.SQLException;
import java.util.Set;
import org.jboss.logging.Logger;

/**
 * The statements that create a database's tables, which every instance runs at start-up. Instances that start at
 * once on a new database race each other: PostgreSQL's CREATE TABLE IF NOT EXISTS is not atomic, nor is a check
 * followed by a create (Iceberg's JDBC catalog). The losers fail with "already exists", or with a unique violation
 * in PostgreSQL's own catalog, and find everything in place when they run the statements again.
 */
public final class ConcurrentDdl {

    private static final Logger LOG = Logger.getLogger(ConcurrentDdl.class);
    /** PostgreSQL's duplicate_table, duplicate_column, and unique_violation (pg_type, two CREATE TABLEs at once). */
    private static final Set<String> STATES = Set.of("42P07", "42701", "23505");

    /** Creates, or finds created. */
    public interface Statements<T, E extends Exception> {
        T run() throws E;
    }

    private ConcurrentDdl() {
    }

    /** Runs the statements, up to twice more when another instance created the same table or column meanwhile. */
    public static <T, E extends Exception> T run(Statements<T, E> statements) throws E {
        Backoff backoff = new Backoff(200, 400); // instances that raced retry apart
        for (int attempt = 1; ; attempt++) {
            try {
                return statements.run();
            } catch (Exception e) {
                if (attempt == 3 || !createdMeanwhile(e)) {
                    throw e;
                }
                LOG.infof("Another instance was creating the same tables (%s); running the statements again",
                        rootMessage(e));
                try {
                    Thread.sleep(backoff.next());
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
    }

    static boolean createdMeanwhile(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && (STATES.contains(sql.getSQLState())
                    || String.valueOf(sql.getMessage()).contains("already exists")
                    || String.valueOf(sql.getMessage()).contains("duplicate column name"))) {
                return true;
            }
        }
        return false;
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return root.getMessage();
    }
}
