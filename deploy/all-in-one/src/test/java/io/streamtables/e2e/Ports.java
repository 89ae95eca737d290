package io.streamtables.e2e;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/** Ports for the processes and proxies the end-to-end tests start. */
final class Ports {

    private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();

    private Ports() {
    }

    /**
     * A free port below Linux's ephemeral range (32768–60999 by default), from which a port chosen by the system
     * would come, and from which every outgoing connection takes its own: one of those took a service's port in the
     * seconds between choosing it and the service binding it ("Port 46055 seems to be in use"). Never the same twice
     * in a JVM.
     */
    static int free() throws IOException {
        for (int attempt = 0; attempt < 1_000; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(20_000, 32_000);
            if (!GIVEN.add(port)) {
                continue;
            }
            try (ServerSocket s = new ServerSocket(port)) {
                return port;
            } catch (IOException taken) {
                // another listener's: try the next
            }
        }
        throw new IOException("no free port between 20000 and 31999");
    }
}
