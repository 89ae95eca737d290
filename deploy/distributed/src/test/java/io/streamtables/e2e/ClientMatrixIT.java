package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every client of the matrix ({@link ClientMatrix}) through the API of the all-in-one and of the distributed
 * control plane: the same check, packaged two ways.
 */
class ClientMatrixIT {

    @Test
    void throughTheAllInOne() throws Exception {
        Path dir = AllInOneProcess.tempDir("matrix-all-in-one");
        try (AllInOneProcess app = new AllInOneProcess(dir, config(dir)).start()) {
            assertEveryClientCalled(ClientMatrix.run(app, dir));
        }
    }

    @Test
    void throughTheControlPlane() throws Exception {
        Path dir = AllInOneProcess.tempDir("matrix-control-plane");
        try (StageProcess controlPlane = StageProcess.start("control-plane", "control-plane-1", dir, config(dir))) {
            controlPlane.awaitReady(90);
            assertEveryClientCalled(ClientMatrix.run(controlPlane, dir));
        }
    }

    /** The printed table has each client's calls: a client left out of the matrix fails here too. */
    private static void assertEveryClientCalled(String table) {
        for (String client : List.of("java", "java-async", "boto3", "js", "cli", "curl")) {
            assertTrue(table.lines().anyMatch(line -> line.startsWith(client + " ")), client + " made no call");
        }
    }

    /** The tests' peers, no channel yet: the clients create theirs. */
    private static Map<String, String> config(Path dir) throws Exception {
        String warehouse = "wh-" + dir.getFileName().toString().toLowerCase().replaceAll("[^a-z0-9-]", "-");
        try (var s3 = Peers.s3()) {
            s3.createBucket(r -> r.bucket(warehouse));
        }
        Path channels = Files.writeString(dir.resolve("channels.json"), "[]");
        return Peers.appConfig(dir, channels, Peers.catalog("jdbc:sqlite:" + dir.resolve("catalog.db"), warehouse));
    }
}
