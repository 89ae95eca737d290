package io.streamtables.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.util.Properties;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** Issue 15: the service database's password is a setting of its own, and never shown. */
class DatabaseTest {

    /** A JDBC driver for {@code jdbc:recording:} URLs that keeps what it was given and refuses the connection. */
    static final class Recording implements Driver {
        static Properties given;

        @Override
        public Connection connect(String url, Properties info) throws SQLException {
            if (!acceptsURL(url)) {
                return null;
            }
            given = info;
            throw new SQLException("FATAL: password authentication failed for " + url);
        }

        @Override
        public boolean acceptsURL(String url) {
            return url.startsWith("jdbc:recording:");
        }

        @Override
        public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
            return new DriverPropertyInfo[0];
        }

        @Override
        public int getMajorVersion() {
            return 1;
        }

        @Override
        public int getMinorVersion() {
            return 0;
        }

        @Override
        public boolean jdbcCompliant() {
            return false;
        }

        @Override
        public Logger getParentLogger() {
            return Logger.getGlobal();
        }
    }

    @Test
    void credentialsGoToTheDriverApartFromTheUrl() throws Exception {
        Recording driver = new Recording();
        DriverManager.registerDriver(driver);
        try {
            Database db = new Database("jdbc:recording://db/delivery", "svc", "hunter2");
            assertThrows(SQLException.class, db::connect);
            assertEquals("svc", Recording.given.getProperty("user"));
            assertEquals("hunter2", Recording.given.getProperty("password"));

            Database inUrl = Database.of("jdbc:recording://db/delivery?password=hunter2");
            SQLException refused = assertThrows(SQLException.class, inUrl::connect);
            String shown = inUrl.failed("read the channels", refused).getMessage();
            assertFalse(shown.contains("hunter2"), shown);
            assertTrue(shown.startsWith("Cannot read the channels in the service database "
                    + "jdbc:recording://db/delivery?password=*** (delivery.database-url)"), shown);
            assertEquals("jdbc:recording://db/delivery?password=***", inUrl.toString());
        } finally {
            DriverManager.deregisterDriver(driver);
        }
    }
}
