package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.watermarks.Checkpoint;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;

/** Hard stops (SIGKILL) of the all-in-one while records flow: nothing is lost, nothing is duplicated. */
class RestartIT {

    @Test
    void killedMidStreamLosesAndDuplicatesNothing() throws Exception {
        try (DeliveryFixture fixture = new DeliveryFixture("restart", DeliveryFixture.CatalogKind.SQLITE, 1);
                AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start()) {
            fixture.awaitActive(app);
            Events events = new Events(7, 1);
            List<Events.Event> all = events.next(12_000, 40); // killed 3 times or more; CrashIT kills more
            CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
                for (int from = 0; from < all.size(); from += 500) {
                    fixture.produce(all.subList(from, from + 500));
                    sleep(150);
                }
            });
            Random random = new Random(11);
            int kills = 0;
            while (!producer.isDone() || kills < 3) {
                Thread.sleep(5_000 + random.nextInt(4_000)); // up long enough to commit, sometimes mid-commit
                app.kill();
                kills++;
                app.start();
            }
            producer.get(5, TimeUnit.MINUTES);
            fixture.awaitDelivered(180, app);
            DeliveryFixture.Summary summary = fixture.verify();
            System.out.printf("restart: %d hard kills; %d rows, %d dead letters, %d data files in %d commits%n", kills,
                    summary.rows(), summary.deadLetters(), summary.files(), summary.commits());
            assertEquals(all.stream().filter(e -> !e.valid()).count(), summary.deadLetters());
            assertTrue(app.starts() >= 4);
        }
    }

    /**
     * An engine compacts the table and expires every snapshot but the last, so no delivery snapshot is
     * left; then the service is killed and started again. It resumes from the checkpoint in the table's properties:
     * nothing read twice. (A checkpoint kept only in snapshot summaries would be gone, and the stream read again
     * from the channel's activation.)
     */
    @Test
    void maintenanceByAnotherEngineErasesNoCheckpoint() throws Exception {
        try (DeliveryFixture fixture = new DeliveryFixture("foreign-maintenance", DeliveryFixture.CatalogKind.SQLITE, 1);
                AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start()) {
            fixture.awaitActive(app);
            Events events = new Events(18, 1);
            fixture.produce(events.next(2_000, 40));
            fixture.awaitDelivered(120, app);
            Table table = fixture.catalog().loadTable(fixture.table);
            ForeignMaintenance.compactAndExpire(table);
            table.refresh();
            assertTrue(StreamSupport.stream(table.snapshots().spliterator(), false)
                    .noneMatch(s -> s.summary().containsKey(Checkpoint.COMMIT_ID_PROPERTY)),
                    "a delivery snapshot is left");
            app.kill();
            app.start();
            fixture.produce(events.next(2_000, 40));
            fixture.awaitDelivered(180, app);
            DeliveryFixture.Summary summary = fixture.verify();
            System.out.printf("foreign maintenance: %d rows, %d dead letters, %d commits kept%n", summary.rows(),
                    summary.deadLetters(), summary.commits());
            assertEquals(3_900, summary.rows());
        }
    }

    /** A crash before the first commit resumes at the channel's activation time, not at the stream's tip. */
    @Test
    void crashBeforeTheFirstCommitResumesAtActivation() throws Exception {
        try (DeliveryFixture fixture = new DeliveryFixture("activation", DeliveryFixture.CatalogKind.SQLITE, 10);
                AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start()) {
            fixture.awaitActive(app);
            fixture.produce(new Events(3, 1).next(2_000, 40));
            Thread.sleep(3_000); // read and buffered, not committed: freshness is 10 s
            assertTrue(fixture.committedWatermarks().isEmpty(), "nothing may be committed yet");
            app.kill();
            app.start();
            fixture.awaitDelivered(120, app);
            DeliveryFixture.Summary summary = fixture.verify();
            assertEquals(1_950, summary.rows());
            assertEquals(50, summary.deadLetters());
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
