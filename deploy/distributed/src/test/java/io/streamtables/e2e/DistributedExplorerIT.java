package io.streamtables.e2e;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The explorer ({@code ExplorerIT}) against the services as separate processes ({@link ExploreDeployment}): its
 * kill and pause steps take one stage among several, and the model is the same. The same system properties replay a
 * seed or steps, or run new seeds for a time ({@code bench/run.sh --only=explore --distributed}).
 */
class DistributedExplorerIT {

    /** Seeds whose plans kill and pause (9 cuts S3 away too); each run starts six JVMs on a broker of its own. */
    static final long[] SEEDS = {9, 50};

    @Test
    void theServicesDoWhatTheModelSays() throws Exception {
        Assumptions.assumeTrue(Peers.postgresAnswers(), "no PostgreSQL answers at " + Peers.POSTGRES);
        ExplorerIT.explore(ExploreDeployment.KIND, SEEDS);
    }
}
