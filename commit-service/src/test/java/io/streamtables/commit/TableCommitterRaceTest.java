package io.streamtables.commit;

import static io.streamtables.commit.CommitFixture.SHARD;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
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
 * there and its records were delivered twice).
 */
class TableCommitterRaceTest {

    private static final String SHARD_2 = "shardId-000000000002";

    @TempDir
    Path dir;

    private CommitFixture f;

    @BeforeEach
    void setUp() {
        f = new CommitFixture(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    @Test
    void aCommitBetweenTheCheckAndTheAppendIsNotOverwritten() {
        ChannelBuffer mine = f.buffer();
        mine.append(f.chunk(null, 1, 3));
        PendingCommit cut = mine.cut();
        ChannelBuffer other = f.buffer();
        other.append(f.chunk(SHARD_2, null, List.of(f.row("10", "2024-05-01T10:00:00Z")), List.of()));
        PendingCommit othersCut = other.cut();

        Table loaded = f.catalog.loadTable(f.channel.table());
        Racy racy = new Racy(((HasTableOperations) loaded).operations(),
                () -> assertTrue(TableCommitter.commit(f.table, othersCut)));
        assertTrue(TableCommitter.commit(new BaseTable(racy, loaded.name()), cut));

        assertTrue(racy.fired, "the other commit did not come in between");
        assertEquals(Map.of(SHARD, "3", SHARD_2, "10"), f.watermarks());
        assertEquals(List.of(1L, 2L, 3L, 10L), f.ids());
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
