package io.streamtables.tasks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.Test;

class DaemonThreadsTest {

    @Test
    void namedThreadsAreDaemons() {
        Thread t = DaemonThreads.named("commit-ticker").newThread(() -> { });
        assertEquals("commit-ticker", t.getName());
        assertTrue(t.isDaemon());
    }

    @Test
    void numberedThreadsCountFromOnePerFactory() {
        ThreadFactory checks = DaemonThreads.numbered("channel-checks");
        assertEquals("channel-checks-1", checks.newThread(() -> { }).getName());
        assertEquals("channel-checks-2", checks.newThread(() -> { }).getName());
        assertEquals("ingest-1", DaemonThreads.numbered("ingest").newThread(() -> { }).getName());
        assertTrue(checks.newThread(() -> { }).isDaemon());
    }
}
