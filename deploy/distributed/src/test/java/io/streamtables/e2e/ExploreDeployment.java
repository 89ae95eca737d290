package io.streamtables.e2e;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The explorer's target of several processes ({@link ExploreTarget}): the control plane, two ingest-services sharing
 * the shards through leases, convert, commit and dlq, over a Kafka broker of the run's own ({@link PrivateKafka}: no
 * message of an earlier run on the bus) and a PostgreSQL database of the run's, which is the catalog too. A kill or
 * a pause takes one of the processes, drawn with the run's random.
 */
final class ExploreDeployment implements ExploreTarget {

    /** New worlds on PostgreSQL and a private broker. */
    static final Kind KIND = new Kind() {
        @Override
        public String newCatalog(Path workDir) throws Exception {
            return FaultRig.createDatabase(FaultRig.databaseName("st_explore"));
        }

        @Override
        public ExploreTarget start(Path workDir, Map<String, String> config) throws Exception {
            return new ExploreDeployment(workDir, config);
        }

        @Override
        public void dropCatalog(String uri) {
            FaultRig.dropDatabase(uri.substring(uri.lastIndexOf('/') + 1).split("\\?")[0]);
        }
    };

    private final PrivateKafka kafka;
    private final Deployment deployment;

    private ExploreDeployment(Path workDir, Map<String, String> runConfig) throws Exception {
        kafka = new PrivateKafka(workDir); // started
        try {
            Map<String, String> config = new LinkedHashMap<>(runConfig);
            config.remove("delivery.channels-file"); // channels come through the API
            config.put("delivery.database-url", runConfig.get("delivery.catalog.uri"));
            config.put("kafka.bootstrap.servers", kafka.bootstrap());
            // a killed or paused consumer loses its partitions after 10 s, not the client's 45 s
            config.put("mp.messaging.connector.smallrye-kafka.session.timeout.ms", "10000");
            config.put("mp.messaging.connector.smallrye-kafka.heartbeat.interval.ms", "2000");
            deployment = new Deployment(workDir, config, 2, 1);
        } catch (Exception e) {
            kafka.close();
            throw e;
        }
    }

    @Override
    public String kill(Random random) throws Exception {
        StageProcess victim = pick(random);
        victim.kill();
        victim.restart().awaitReady(180);
        return victim.name;
    }

    @Override
    public String pause(Random random, int seconds) throws Exception {
        StageProcess victim = pick(random);
        victim.pause();
        try {
            Thread.sleep(seconds * 1_000L);
        } finally {
            victim.resume();
        }
        return victim.name;
    }

    private StageProcess pick(Random random) {
        List<StageProcess> processes = deployment.processes();
        return processes.get(random.nextInt(processes.size()));
    }

    @Override
    public String log() throws IOException {
        StringBuilder all = new StringBuilder();
        for (StageProcess p : deployment.processes()) {
            all.append(p.log());
        }
        return all.toString();
    }

    @Override
    public String url() {
        return deployment.url();
    }

    @Override
    public String tail() throws IOException {
        return deployment.tail();
    }

    @Override
    public void close() throws Exception {
        try {
            deployment.close();
        } finally {
            kafka.close();
        }
    }
}
