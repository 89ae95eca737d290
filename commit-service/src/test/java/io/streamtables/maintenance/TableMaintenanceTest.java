package io.streamtables.maintenance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.exceptions.ValidationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TableMaintenanceTest {

    private static final long FRESHNESS_MS = 60_000;

    @TempDir
    Path dir;

    private static MaintenanceSettings settings(MaintenanceFixture f, Map<String, Object> changed) {
        f.table.refresh();
        return MaintenanceSettings.of(f.table.properties(), MaintenanceFixture.config(changed));
    }

    private static void run(MaintenanceFixture f, long epoch, MaintenanceSettings settings) {
        TableMaintenance.run(f.table, settings, new FencedCommit(epoch, 10), FRESHNESS_MS, () -> { },
                System.currentTimeMillis(), true);
    }

    @Test
    void closedAndCrowdedPartitionsAreCompactedWithEveryRowKept() throws Exception {
        try (MaintenanceFixture f = new MaintenanceFixture(dir)) {
            OffsetDateTime closed = MaintenanceFixture.hoursAgo(5);
            OffsetDateTime open = MaintenanceFixture.hoursAgo(0);
            OffsetDateTime crowdedOpen = open.plusMinutes(0).plusHours(1); // an hour still to come: open too
            for (int i = 0; i < 10; i++) {
                f.deliver(closed, 20);
            }
            for (int i = 0; i < 3; i++) {
                f.deliver(open, 20);
            }
            for (int i = 0; i < 6; i++) {
                f.deliver(crowdedOpen, 20);
            }
            List<String> before = f.rows();
            String watermark = f.watermark();

            MaintenanceSettings settings = settings(f, Map.of("maxSmallFiles", 5));
            List<Compaction.Group> due = Compaction.plan(f.table, settings, System.currentTimeMillis(),
                    FRESHNESS_MS);
            assertEquals(2, due.size(), "the closed partition and the crowded open one: " + due);
            run(f, 1, settings);

            assertEquals(before, f.rows(), "the same rows, values and partitions");
            Map<String, Integer> files = f.filesPerPartition();
            assertEquals(3, files.size(), files.toString());
            assertEquals(List.of(1, 3, 1), partitionsInOrder(files, closed, open, crowdedOpen, f), files.toString());
            assertEquals(watermark, f.watermark(), "maintenance never moves the checkpoint");
            assertEquals(1, compactions(f), "both partitions in one commit");

            f.deliver(open, 5); // a delivery after maintenance starts from the checkpoint as it was
            assertEquals(Long.toString(Long.parseLong(watermark) + 1), f.watermark());
        }
    }

    private static List<Integer> partitionsInOrder(Map<String, Integer> files, OffsetDateTime a, OffsetDateTime b,
            OffsetDateTime c, MaintenanceFixture f) {
        List<Integer> counts = new ArrayList<>();
        for (OffsetDateTime hour : List.of(a, b, c)) {
            counts.add(files.getOrDefault(partitionPath(hour), -1));
        }
        return counts;
    }

    private static String partitionPath(OffsetDateTime hour) {
        return "ts_hour=" + hour.toString().substring(0, 13).replace('T', '-');
    }

    private static int compactions(MaintenanceFixture f) {
        int found = 0;
        for (Snapshot s : f.table.snapshots()) {
            if ("compaction".equals(s.summary().get(Compaction.SUMMARY_PROPERTY))) {
                found++;
            }
        }
        return found;
    }

    /**
     * Late records keep coming to a closed hour: its big compacted file is not copied again each run, only the
     * small ones merged; once the hour is quiet for the grace, everything becomes one file.
     */
    @Test
    void aBigFileWaitsWhileLateRecordsComeAndIsMergedOnceQuiet() throws Exception {
        try (MaintenanceFixture f = new MaintenanceFixture(dir)) {
            OffsetDateTime closed = MaintenanceFixture.hoursAgo(5);
            DataFile big = f.deliver(closed, 3_000);
            for (int i = 0; i < 3; i++) {
                f.deliver(closed, 5);
            }
            MaintenanceSettings settings = settings(f, Map.of()); // grace 10 minutes
            long now = System.currentTimeMillis();
            List<Compaction.Group> busy = Compaction.plan(f.table, settings, now, FRESHNESS_MS);
            assertEquals(1, busy.size());
            assertEquals(3, busy.get(0).files().size(), "the late small files only");
            assertFalse(busy.get(0).files().stream().anyMatch(d -> d.location().equals(big.location())));

            List<Compaction.Group> quiet = Compaction.plan(f.table, settings, now + 11 * 60_000, FRESHNESS_MS);
            assertEquals(4, quiet.get(0).files().size(), "quiet: every small file of the hour");
        }
    }

    /**
     * A compacted file is smaller in bytes than the small files it replaced (each carries its own footer): tiers count
     * rows, so a run after a few more small files leaves it alone.
     */
    @Test
    void aCompactedFileIsNotRewrittenForFewerLateRowsThanItHolds() throws Exception {
        try (MaintenanceFixture f = new MaintenanceFixture(dir)) {
            OffsetDateTime closed = MaintenanceFixture.hoursAgo(5);
            for (int i = 0; i < 30; i++) {
                f.deliver(closed, 17);
            }
            MaintenanceSettings settings = settings(f, Map.of()); // grace 10 minutes: the hour is not quiet
            run(f, 1, settings);
            assertEquals(Map.of(partitionPath(closed), 1), f.filesPerPartition());
            DataFile compacted;
            try (var tasks = f.table.newScan().planFiles()) {
                compacted = tasks.iterator().next().file();
            }
            long lateBytes = 0;
            for (int i = 0; i < 20; i++) {
                lateBytes += f.deliver(closed, 17).fileSizeInBytes();
            }
            assertTrue(compacted.fileSizeInBytes() < lateBytes, "the premise: by bytes the compacted file is small");

            List<Compaction.Group> due = Compaction.plan(f.table, settings, System.currentTimeMillis(), FRESHNESS_MS);
            assertEquals(20, due.get(0).files().size(), "the late files only");
            assertFalse(due.get(0).files().stream().anyMatch(d -> d.location().equals(compacted.location())));
        }
    }

    /** A delivery lands between the plan and the rewrite: Iceberg applies the rewrite on top, both stay. */
    @Test
    void aDeliveryBetweenThePlanAndTheRewriteKeepsBoth() throws Exception {
        try (MaintenanceFixture f = new MaintenanceFixture(dir)) {
            OffsetDateTime closed = MaintenanceFixture.hoursAgo(3);
            for (int i = 0; i < 4; i++) {
                f.deliver(closed, 10);
            }
            MaintenanceSettings settings = settings(f, Map.of());
            FencedCommit fence = new FencedCommit(1, 10);
            fence.claim(f.table);
            List<Compaction.Group> due = Compaction.plan(f.table, settings, System.currentTimeMillis(), FRESHNESS_MS);
            long planned = f.table.currentSnapshot().snapshotId();

            f.deliver(closed, 10); // late records of the closed hour, delivered meanwhile
            List<String> before = f.rows();
            String watermark = f.watermark();
            Compaction.rewrite(f.table, due, planned, fence, settings, () -> { });

            assertEquals(before, f.rows());
            assertEquals(watermark, f.watermark(), "the delivery's watermark, not the one the plan read");
            assertEquals(2, f.filesPerPartition().values().iterator().next(), "the compacted file and the late one");
        }
    }

    /** Another commit removed a file of the plan: the rewrite fails Iceberg's validation and leaves no file. */
    @Test
    void aRewriteOfFilesAnotherCommitRemovedChangesNothing() throws Exception {
        try (MaintenanceFixture f = new MaintenanceFixture(dir)) {
            OffsetDateTime closed = MaintenanceFixture.hoursAgo(3);
            List<DataFile> delivered = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                delivered.add(f.deliver(closed, 10));
            }
            MaintenanceSettings settings = settings(f, Map.of());
            List<Compaction.Group> due = Compaction.plan(f.table, settings, System.currentTimeMillis(), FRESHNESS_MS);
            long planned = f.table.currentSnapshot().snapshotId();
            f.table.newDelete().deleteFile(delivered.get(0)).commit(); // an engine's delete
            List<String> before = f.rows();
            long parquetBefore = parquetFiles(f);

            assertThrows(ValidationException.class,
                    () -> Compaction.rewrite(f.table, due, planned, new FencedCommit(1, 10), settings, () -> { }));
            assertEquals(before, f.rows());
            assertEquals(parquetBefore, parquetFiles(f), "the rewrite's own files are deleted");
        }
    }

    /** Snapshots past the count and the age go, with the files only they referenced; the checkpoint stays. */
    @Test
    void snapshotsExpireByCountAndAgeWithTheFilesOnlyTheyReferenced() throws Exception {
        try (MaintenanceFixture f = new MaintenanceFixture(dir)) {
            OffsetDateTime closed = MaintenanceFixture.hoursAgo(4);
            for (int i = 0; i < 12; i++) {
                f.deliver(closed, 10);
            }
            List<String> before = f.rows();
            String watermark = f.watermark();
            run(f, 1, settings(f, Map.of("maxSnapshots", 5)));
            assertEquals(5, count(f.table.snapshots()), "compaction added one, the newest five are kept");
            assertEquals(before, f.rows());
            assertEquals(13, parquetFiles(f), "the small files are still referenced by kept snapshots");

            run(f, 2, settings(f, Map.of("maxSnapshotAge", java.time.Duration.ZERO)));
            assertEquals(1, count(f.table.snapshots()), "the compaction's");
            // Iceberg's own cleanup would keep them until the compaction's snapshot expires too
            assertEquals(1, parquetFiles(f), "the small files went with the last snapshots that held them");
            assertEquals(before, f.rows());
            assertEquals(watermark, f.watermark(), "the checkpoint outlives every delivery snapshot");
            f.deliver(closed, 1);
            assertEquals(Long.toString(Long.parseLong(watermark) + 1), f.watermark());
        }
    }

    /** Old unreferenced files go; young ones (a commit in flight) and the staged dead letters stay. */
    @Test
    void onlyOldUnreferencedFilesAreRemoved() throws Exception {
        try (MaintenanceFixture f = new MaintenanceFixture(dir)) {
            OffsetDateTime hour = MaintenanceFixture.hoursAgo(0);
            f.deliver(hour, 10);
            DataFile crashed = f.write(hour, 10); // written, never committed: a crash
            DataFile inFlight = f.write(hour, 10); // written just now: its commit may be under way
            Path old = Path.of(crashed.location());
            long fourDaysAgo = System.currentTimeMillis() - 4 * 86_400_000L;
            Files.setLastModifiedTime(old, java.nio.file.attribute.FileTime.fromMillis(fourDaysAgo));
            Path table = Path.of(f.table.location());
            Path siblingTable = table.resolveSibling(table.getFileName() + "_old").resolve("data/x.parquet");
            Files.createDirectories(siblingTable.getParent());
            Files.writeString(siblingTable, "another table's file");
            Files.setLastModifiedTime(siblingTable, java.nio.file.attribute.FileTime.fromMillis(fourDaysAgo));
            try (Stream<Path> all = Files.walk(table)) { // every file of the table is old now, but the two
                for (Path p : all.filter(Files::isRegularFile).toList()) {
                    if (!p.equals(Path.of(inFlight.location()))) {
                        Files.setLastModifiedTime(p, java.nio.file.attribute.FileTime.fromMillis(fourDaysAgo));
                    }
                }
            }
            List<String> before = f.rows();

            OrphanCleanup.Result result = OrphanCleanup.clean(f.table, settings(f, Map.of()),
                    System.currentTimeMillis(), () -> { }, new SnapshotFiles(f.table));

            assertEquals(1, result.removed(), "the crashed commit's file");
            assertFalse(Files.exists(old));
            assertTrue(Files.exists(Path.of(inFlight.location())), "a young file survives");
            assertTrue(Files.exists(siblingTable), "another table's files are not listed");
            assertEquals(before, f.rows(), "every referenced file is still there");
        }
    }

    /**
     * A channel deleted and created again on another stream commits into the same table: the dead letters its
     * earlier stream staged and did not publish are still the checkpoint's, and stay however old, as the new
     * stream's do.
     */
    @Test
    void theStagedDeadLettersOfEveryStreamStay() throws Exception {
        try (MaintenanceFixture f = new MaintenanceFixture(dir)) {
            f.deliver(MaintenanceFixture.hoursAgo(0), 10);
            Path earlier = f.stageDeadLetters(MaintenanceFixture.STREAM);
            Path now = f.stageDeadLetters(MaintenanceFixture.STREAM_B);
            long fourDaysAgo = System.currentTimeMillis() - 4 * 86_400_000L;
            for (Path staged : List.of(earlier, now)) {
                Files.setLastModifiedTime(staged, java.nio.file.attribute.FileTime.fromMillis(fourDaysAgo));
            }

            OrphanCleanup.clean(f.table, settings(f, Map.of()), System.currentTimeMillis(), () -> { },
                    new SnapshotFiles(f.table));

            assertTrue(Files.exists(earlier), "the earlier stream's unpublished dead letters were removed");
            assertTrue(Files.exists(now), "the stream's own unpublished dead letters were removed");
        }
    }

    /** A table dropped from the catalog and created again under its name shares the folder: nothing is removed. */
    @Test
    void anotherTablesFilesInTheFolderStopTheCleanup() throws Exception {
        try (MaintenanceFixture f = new MaintenanceFixture(dir)) {
            f.deliver(MaintenanceFixture.hoursAgo(0), 10);
            org.apache.iceberg.Table other = f.catalog.buildTable(
                    org.apache.iceberg.catalog.TableIdentifier.of("sales", "orders_again"), MaintenanceFixture.SCHEMA)
                    .withPartitionSpec(f.table.spec()).withLocation(f.table.location()).create();
            other.newAppend().appendFile(f.write(MaintenanceFixture.hoursAgo(0), 5)).commit(); // it holds data
            long files = countFiles(f);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> OrphanCleanup.clean(f.table,
                    settings(f, Map.of("orphanAge", java.time.Duration.ZERO)), System.currentTimeMillis() + 1_000,
                    () -> { }, new SnapshotFiles(f.table)));
            assertTrue(e.getMessage().contains("another table (" + ((org.apache.iceberg.HasTableOperations) other)
                    .operations().current().uuid() + ")"), e.getMessage());
            assertEquals(files, countFiles(f), "nothing deleted");
        }
    }

    /**
     * Two instances created the table at once: the loser's first metadata file (another table id, no snapshot) is
     * left in the folder. It is an orphan, not another table: the cleanup goes on and removes it once old.
     */
    @Test
    void theMetadataOfALostCreationRaceIsAnOrphan() throws Exception {
        try (MaintenanceFixture f = new MaintenanceFixture(dir)) {
            f.deliver(MaintenanceFixture.hoursAgo(0), 10);
            org.apache.iceberg.Table loser = f.catalog.buildTable(
                    org.apache.iceberg.catalog.TableIdentifier.of("sales", "orders_lost"), MaintenanceFixture.SCHEMA)
                    .withLocation(f.table.location()).create();
            String leftOver = ((org.apache.iceberg.HasTableOperations) loser).operations().current()
                    .metadataFileLocation();
            List<String> before = f.rows();
            OrphanCleanup.Result result = OrphanCleanup.clean(f.table,
                    settings(f, Map.of("orphanAge", java.time.Duration.ZERO)), System.currentTimeMillis() + 1_000,
                    () -> { }, new SnapshotFiles(f.table));
            assertEquals(1, result.removed(), "the lost creation's metadata file");
            assertFalse(Files.exists(Path.of(leftOver)));
            assertEquals(before, f.rows());
        }
    }

    /**
     * A table an earlier release delivered to has its checkpoint in a delivery snapshot's summary only: expiration
     * keeps that snapshot, however old, until a delivery moves the checkpoint to the properties.
     */
    @Test
    void expirationKeepsTheSnapshotHoldingAnEarlierReleasesCheckpoint() throws Exception {
        try (MaintenanceFixture f = new MaintenanceFixture(dir)) {
            OffsetDateTime closed = MaintenanceFixture.hoursAgo(3);
            for (int i = 0; i < 3; i++) {
                f.deliver(closed, 10);
            }
            String watermark = f.watermark();
            f.table.updateProperties().remove("delivery.watermarks").remove("delivery.cut-ids")
                    .remove("delivery.dead-letters").commit(); // as an earlier release left it
            assertEquals(watermark, f.watermark(), "read from the summary");
            run(f, 1, settings(f, Map.of("maxSnapshotAge", java.time.Duration.ZERO)));
            assertTrue(count(f.table.snapshots()) >= 2, "the compaction's and the last delivery's");
            assertEquals(watermark, f.watermark(), "the checkpoint survives");
        }
    }

    @Test
    void partitionsOlderThanTheRecordExpirationAreDropped() throws Exception {
        try (MaintenanceFixture f = new MaintenanceFixture(dir)) {
            f.deliver(MaintenanceFixture.hoursAgo(24 * 10), 10);
            f.deliver(MaintenanceFixture.hoursAgo(24 * 7 + 2), 10);
            f.deliver(MaintenanceFixture.hoursAgo(24 * 3), 10);
            f.deliver(MaintenanceFixture.hoursAgo(0), 10);
            List<String> before = f.rows();
            int dropped = RecordExpiration.expire(f.table, new FencedCommit(1, 10),
                    settings(f, Map.of("recordExpirationDays", 7)), System.currentTimeMillis());
            assertEquals(2, dropped);
            List<String> after = f.rows();
            assertEquals(20, after.size());
            assertEquals(before.stream().filter(after::contains).count(), 20, "the recent rows untouched");
            assertEquals(0, RecordExpiration.expire(f.table, new FencedCommit(1, 10), settings(f, Map.of()),
                    System.currentTimeMillis()), "off by default");
        }
    }

    @Test
    void manifestsPastTheLimitAreMergedIntoOne() throws Exception {
        try (MaintenanceFixture f = new MaintenanceFixture(dir)) {
            for (int i = 0; i < 8; i++) {
                f.deliver(MaintenanceFixture.hoursAgo(0), 2);
            }
            assertEquals(8, f.table.currentSnapshot().dataManifests(f.table.io()).size());
            List<String> before = f.rows();
            assertEquals(8, ManifestRewrite.rewrite(f.table, new FencedCommit(1, 10),
                    settings(f, Map.of("maxManifests", 5))));
            assertEquals(1, f.table.currentSnapshot().dataManifests(f.table.io()).size());
            assertEquals(before, f.rows());
        }
    }

    /** A run whose lease passed to another instance's run commits nothing once that run claimed the table. */
    @Test
    void aRunOfAnOlderEpochIsFenced() throws Exception {
        try (MaintenanceFixture f = new MaintenanceFixture(dir)) {
            OffsetDateTime closed = MaintenanceFixture.hoursAgo(3);
            for (int i = 0; i < 3; i++) {
                f.deliver(closed, 10);
            }
            MaintenanceSettings settings = settings(f, Map.of());
            FencedCommit paused = new FencedCommit(1, 10);
            paused.claim(f.table);
            List<Compaction.Group> due = Compaction.plan(f.table, settings, System.currentTimeMillis(), FRESHNESS_MS);
            long planned = f.table.currentSnapshot().snapshotId();
            new FencedCommit(2, 10).claim(f.table); // the next holder
            long snapshot = f.table.currentSnapshot().snapshotId();
            long parquetBefore = parquetFiles(f);

            assertThrows(FencedCommit.FencedException.class,
                    () -> Compaction.rewrite(f.table, due, planned, paused, settings, () -> { }));
            assertThrows(FencedCommit.FencedException.class,
                    () -> SnapshotExpiration.expire(f.table, paused, settings(f, Map.of("maxSnapshots", 1)),
                            System.currentTimeMillis(), new SnapshotFiles(f.table)));
            f.table.refresh();
            assertEquals(snapshot, f.table.currentSnapshot().snapshotId());
            assertEquals(3, count(f.table.snapshots()), "claims add no snapshot; nothing else landed");
            assertEquals(parquetBefore, parquetFiles(f));
        }
    }

    /**
     * Two processes that name themselves alike (one host name and port) get one lease epoch; the second to claim
     * the table finds the first's holder at that epoch and is fenced, so they cannot both commit.
     */
    @Test
    void twoHoldersAtTheSameEpochCannotBothCommit() throws Exception {
        try (MaintenanceFixture f = new MaintenanceFixture(dir)) {
            f.deliver(MaintenanceFixture.hoursAgo(3), 10);
            FencedCommit first = new FencedCommit(5, "process-a", 10);
            FencedCommit second = new FencedCommit(5, "process-b", 10);
            first.claim(f.table);
            assertTrue(FencedCommit.heldByAnother(f.table, 5, "process-b"));
            assertThrows(FencedCommit.FencedException.class, () -> second.claim(f.table));
            assertThrows(FencedCommit.FencedException.class, () -> second.commit(f.table, t -> t.updateProperties()
                    .set("k", "b").commit()));
            first.commit(f.table, t -> t.updateProperties().set("k", "a").commit());
            assertEquals("a", f.table.properties().get("k"));
            new FencedCommit(6, "process-b", 10).claim(f.table); // the lease raised past the first's epoch
            assertThrows(FencedCommit.FencedException.class, () -> first.commit(f.table, t -> { }));
        }
    }

    @Test
    void tablePropertiesOverrideTheServiceDefaults() {
        MaintenanceSettings s = MaintenanceSettings.of(Map.of(
                "history.expire.max-snapshot-age-ms", "3600000",
                "delivery.maintenance.max-small-files", "x7",
                "delivery.record-expiration-days", "30",
                "delivery.maintenance.enabled", "false"), MaintenanceFixture.config(Map.of()));
        assertEquals(3_600_000, s.maxSnapshotAgeMillis());
        assertEquals(50, s.maxSmallFiles(), "not a number: the default");
        assertEquals(30, s.recordExpirationDays());
        assertFalse(s.enabled());
        assertEquals(512L * 1024 * 1024, s.targetFileSizeBytes(), "S3 Tables' target where the table has none");
        assertEquals(72 * 3_600_000L, s.orphanAgeMillis());
        assertEquals(3_600_000L, MaintenanceSettings.of(Map.of("delivery.maintenance.orphan-age-ms", "0"),
                MaintenanceFixture.config(Map.of("minOrphanAge", java.time.Duration.ofHours(1)))).orphanAgeMillis(),
                "an ALTER TABLE cannot take files of commits in flight");
    }

    private static long countFiles(MaintenanceFixture f) throws IOException {
        try (Stream<Path> all = Files.walk(Path.of(f.table.location()))) {
            return all.filter(Files::isRegularFile).count();
        }
    }

    private static long parquetFiles(MaintenanceFixture f) throws IOException {
        try (Stream<Path> all = Files.walk(Path.of(f.table.location()))) {
            return all.filter(p -> p.toString().endsWith(".parquet")).count();
        }
    }

    private static int count(Iterable<?> items) {
        int n = 0;
        for (Object ignored : items) {
            n++;
        }
        return n;
    }
}
