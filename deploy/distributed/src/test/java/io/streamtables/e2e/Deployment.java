package io.streamtables.e2e;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The four stages as separate JVMs wired by Kafka: ingest-service first (it creates the shared tables of the
 * channel registry and the catalog, and serves the schema registry), then further ingest instances (they share the
 * shards through leases; the channel API stays on the first), convert, commit (as many instances as asked: one
 * consumer group) and dlq together.
 */
final class Deployment implements ServiceUnderTest, AutoCloseable {

    private final List<StageProcess> processes = new ArrayList<>();
    private final StageProcess ingest;

    Deployment(DeliveryFixture fixture, Map<String, String> shared, int commitInstances) throws Exception {
        this(fixture, shared, 1, commitInstances);
    }

    /**
     * With {@code ingestInstances} ingest-services (ingest-1 first, then the others with the rest); every
     * instance serves the channel API and the schema registry.
     */
    Deployment(DeliveryFixture fixture, Map<String, String> shared, int ingestInstances, int commitInstances)
            throws Exception {
        try {
            ingest = started(StageProcess.start("ingest", "ingest-1", fixture.workDir, shared)).awaitReady(90);
            for (int i = 2; i <= ingestInstances; i++) {
                started(StageProcess.start("ingest", "ingest-" + i, fixture.workDir, shared)).awaitReady(90);
            }
            // convert and commit read schemas from the registry ingest-service serves
            Map<String, String> withRegistry = new LinkedHashMap<>(shared);
            withRegistry.put("delivery.schema-registry.endpoint-override", ingest.url());
            List<StageProcess> rest = new ArrayList<>();
            rest.add(started(StageProcess.start("convert", "convert-1", fixture.workDir, withRegistry)));
            for (int i = 1; i <= commitInstances; i++) {
                rest.add(started(StageProcess.start("commit", "commit-" + i, fixture.workDir, withRegistry)));
            }
            rest.add(started(StageProcess.start("dlq", "dlq-1", fixture.workDir, shared)));
            for (StageProcess p : rest) {
                p.awaitReady(120);
            }
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    private StageProcess started(StageProcess p) {
        processes.add(p);
        return p;
    }

    List<StageProcess> processes() {
        return processes;
    }

    List<StageProcess> stage(String prefix) {
        return processes.stream().filter(p -> p.name.startsWith(prefix + "-")).toList();
    }

    /** The channel API and the schema registry are served by ingest-service. */
    @Override
    public String url() {
        return ingest.url();
    }

    @Override
    public String tail() throws IOException {
        StringBuilder all = new StringBuilder();
        for (StageProcess p : processes) {
            all.append("--- ").append(p.name).append('\n').append(p.tail()).append('\n');
        }
        return all.toString();
    }

    @Override
    public void close() throws InterruptedException {
        for (StageProcess p : processes) {
            p.close();
        }
    }
}
