package io.streamtables.health;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamtables.state.ChannelStore;
import io.streamtables.state.TestDatabase;
import java.nio.file.Path;
import java.sql.SQLException;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProbeTest {

    @TempDir
    Path dir;

    @Test
    void answeringPeerIsUp() {
        HealthCheckResponse r = new DatabaseReadiness(new ChannelStore(TestDatabase.open("jdbc:sqlite:" + dir.resolve("d.db")).database())).call();
        assertEquals(HealthCheckResponse.Status.UP, r.getStatus());
        assertEquals("service database", r.getName());
    }

    @Test
    void failingPeerIsDownWithTheErrorAndWhatToCheck() {
        HealthCheckResponse r = Probe.of("kinesis", "check the endpoint", () -> {
            throw new SQLException("Connection refused");
        });
        assertEquals(HealthCheckResponse.Status.DOWN, r.getStatus());
        assertEquals("SQLException: Connection refused", r.getData().orElseThrow().get("error"));
        assertEquals("check the endpoint", r.getData().orElseThrow().get("fix"));
    }

    /** A driver's error repeats the URL, and the URL may hold the password. */
    @Test
    void aPasswordInAnErrorIsMasked() {
        HealthCheckResponse r = Probe.of("service database", "check delivery.database-url", () -> {
            throw new SQLException("No suitable driver found for jdbc:postgresql://db:5432/delivery?user=svc&password=hunter2");
        });
        assertEquals("SQLException: No suitable driver found for jdbc:postgresql://db:5432/delivery?user=svc&password=***",
                r.getData().orElseThrow().get("error"));
    }
}
