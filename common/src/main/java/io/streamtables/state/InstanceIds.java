package io.streamtables.state;

import java.net.InetAddress;
import java.util.UUID;

/** How an instance names itself as the owner of leases in the service database (shard and maintenance leases). */
public final class InstanceIds {

    private InstanceIds() {
    }

    /**
     * host:port when the HTTP port is fixed: only one live process can listen there, so a process restarted after
     * a crash takes its own leases back at once instead of waiting for them to expire. Otherwise (port 0, say)
     * host/pid/random, unique even when a restarted process gets the same pid.
     */
    public static String of(int httpPort) {
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            try {
                host = InetAddress.getLocalHost().getHostName();
            } catch (java.io.IOException e) {
                host = "localhost";
            }
        }
        return httpPort > 0 ? host + ":" + httpPort
                : host + "/" + ProcessHandle.current().pid() + "/" + UUID.randomUUID().toString().substring(0, 8);
    }
}
