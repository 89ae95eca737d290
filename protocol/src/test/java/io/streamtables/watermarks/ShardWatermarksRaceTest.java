package io.streamtables.watermarks;

import static io.streamtables.watermarks.WatermarksFixture.MANIFESTS;
import static io.streamtables.watermarks.WatermarksFixture.SHARD;
import static io.streamtables.watermarks.WatermarksFixture.SHARD_2;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.watermarks.WatermarksFixture.TestCut;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Another instance commits between the moment the committer read the watermarks and the moment Iceberg applies
 * the append. Iceberg refreshes the table inside the append and would put the stale watermark map on top of the
 * other instance's snapshot, taking that shard's watermark back (found by CrashIT: the shard was read again from
 * there and its records were delivered twice). {@link PinnedOperations} prevents it.
 */
class ShardWatermarksRaceTest {

    @TempDir
    Path dir;

    private WatermarksFixture f;

    @BeforeEach
    void setUp() {
        f = new WatermarksFixture(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    @Test
    void aCommitBetweenTheCheckAndTheAppendIsNotOverwritten() {
        TestCut cut = f.cut(null, "3", 1, 2, 3);
        Map<String, String> none = new HashMap<>();
        none.put(SHARD_2, null);
        TestCut othersCut = f.cut(none, Map.of(SHARD_2, "10"), 10);

        Table loaded = f.catalog.loadTable(WatermarksFixture.TABLE);
        Racy racy = new Racy(((HasTableOperations) loaded).operations(),
                () -> assertTrue(ShardWatermarks.commit(f.table, othersCut, MANIFESTS)));
        assertTrue(ShardWatermarks.commit(new BaseTable(racy, loaded.name()), cut, MANIFESTS));

        assertTrue(racy.fired, "the other commit did not come in between");
        assertEquals(Map.of(SHARD, "3", SHARD_2, "10"), f.watermarks());
        assertEquals(List.of(1L, 2L, 3L, 10L), f.ids());
    }

    /**
     * A compaction commits between the delivery's read and its commit. The delivery fails the catalog's
     * compare-and-swap and is rebuilt on the compacted table: both land, the watermarks move forward.
     */
    @Test
    void aCompactionBetweenTheCheckAndTheCommitKeepsBoth() {
        assertTrue(ShardWatermarks.commit(f.table, f.cut(null, "2", 1, 2), MANIFESTS));
        Table loaded = f.catalog.loadTable(WatermarksFixture.TABLE);
        Racy racy = new Racy(((HasTableOperations) loaded).operations(), () -> f.table.newRewrite()
                .rewriteFiles(f.dataFiles(), java.util.Set.of(f.dataFile(1, 2))).commit());
        assertTrue(ShardWatermarks.commit(new BaseTable(racy, loaded.name()), f.cut("2", "4", 3, 4), MANIFESTS));

        assertTrue(racy.fired, "the compaction did not come in between");
        assertEquals(Map.of(SHARD, "4"), f.watermarks());
        assertEquals(List.of(1L, 2L, 3L, 4L), f.ids());
        f.table.refresh();
        assertEquals("replace", f.table.snapshot(f.table.currentSnapshot().parentId()).operation(),
                "the delivery came after the compaction");
    }

    /** The table's operations; right after the committer's first refresh, another writer commits. */
    private static final class Racy extends ForwardingOperations {
        private final Runnable other;
        private int refreshes;
        boolean fired;

        Racy(TableOperations ops, Runnable other) {
            super(ops);
            this.other = other;
        }

        private void maybeFire() {
            if (refreshes >= 1 && !fired) {
                fired = true;
                other.run();
            }
        }

        @Override
        public TableMetadata refresh() {
            maybeFire();
            refreshes++;
            return super.refresh();
        }

        @Override
        public void commit(TableMetadata base, TableMetadata metadata) {
            maybeFire();
            super.commit(base, metadata);
        }
    }
}
