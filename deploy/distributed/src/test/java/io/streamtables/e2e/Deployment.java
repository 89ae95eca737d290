package io.streamtables.e2e;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The control plane and the four stages as separate JVMs, the stages wired by Kafka: the control plane first (it
 * serves the channel API and the schema registry, and activates channels), then the ingest instances (they share
 * the shards through leases), then convert, commit and dlq (as many instances of each as asked: a consumer group
 * each) together.
 * Every process migrates the service database at start-up; they may start at once.
 */
final class Deployment implements ServiceUnderTest, AutoCloseable {

    private final List<StageProcess> processes = new ArrayList<>();
    private final StageProcess controlPlane;

    /** How many instances of each stage: the instances of a stage share its work (leases, one consumer group). */
    record Scale(int ingest, int convert, int commit, int dlq) {
    }

    Deployment(DeliveryFixture fixture, Map<String, String> shared, int commitInstances) throws Exception {
        this(fixture, shared, 1, commitInstances);
    }

    /** With {@code ingestInstances} ingest-services and {@code commitInstances} commit-services. */
    Deployment(DeliveryFixture fixture, Map<String, String> shared, int ingestInstances, int commitInstances)
            throws Exception {
        this(fixture.workDir, shared, new Scale(ingestInstances, 1, commitInstances, 1));
    }

    Deployment(DeliveryFixture fixture, Map<String, String> shared, Scale scale) throws Exception {
        this(fixture.workDir, shared, scale);
    }

    /** The processes' logs and files in {@code workDir}. */
    Deployment(Path workDir, Map<String, String> shared, int ingestInstances, int commitInstances) throws Exception {
        this(workDir, shared, new Scale(ingestInstances, 1, commitInstances, 1));
    }

    private Deployment(Path workDir, Map<String, String> shared, Scale scale) throws Exception {
        try {
            controlPlane = started(StageProcess.start("control-plane", "control-plane-1", workDir, shared))
                    .awaitReady(90);
            // convert and commit read schemas from the registry the control plane serves
            Map<String, String> withRegistry = new LinkedHashMap<>(shared);
            withRegistry.put("delivery.schema-registry.endpoint-override", controlPlane.url());
            List<StageProcess> rest = new ArrayList<>();
            for (int i = 1; i <= scale.ingest(); i++) {
                rest.add(started(StageProcess.start("ingest", "ingest-" + i, workDir, shared)));
            }
            for (int i = 1; i <= scale.convert(); i++) {
                rest.add(started(StageProcess.start("convert", "convert-" + i, workDir, withRegistry)));
            }
            for (int i = 1; i <= scale.commit(); i++) {
                rest.add(started(StageProcess.start("commit", "commit-" + i, workDir, withRegistry)));
            }
            for (int i = 1; i <= scale.dlq(); i++) {
                rest.add(started(StageProcess.start("dlq", "dlq-" + i, workDir, shared)));
            }
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

    /** The stages' processes: the bus's users, all but the control plane. */
    List<StageProcess> stages() {
        return processes.stream().filter(p -> p != controlPlane).toList();
    }

    List<StageProcess> stage(String prefix) {
        return processes.stream().filter(p -> p.name.startsWith(prefix + "-")).toList();
    }

    /** The channel API and the schema registry are served by the control plane. */
    @Override
    public String url() {
        return controlPlane.url();
    }

    @Override
    public String tail() throws IOException {
        return StageProcess.tails(processes);
    }

    @Override
    public void close() throws InterruptedException {
        StageProcess.closeAll(processes);
    }
}
