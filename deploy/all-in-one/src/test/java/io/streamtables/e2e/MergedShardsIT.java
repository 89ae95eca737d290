package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.streamtables.watermarks.Checkpoint;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.kinesis.model.Shard;

/**
 * SPEC S1 for merges: the 4 shards of a stream merged in pairs (MergeShards) while the channel delivers, records put
 * to every parent before the merge and to the children after. Every record is in the table once, and a child is
 * read only after both its parents are delivered to their last record: in the table's history, the commit before
 * the first one that holds a child already holds both parents' last records. One parent of each pair is left with a
 * backlog, so that a child read after only its other parent would show there: the first pair's adjacent parent and
 * the second pair's parent (ParentShardId), each read 25 records a call (delivery.kinesis.max-records-per-call).
 */
class MergedShardsIT {

    private static final int ALL_VALID = Integer.MAX_VALUE;

    @Test
    void aMergedShardIsReadAfterBothParentsAndEveryRecordIsDeliveredOnce() throws Exception {
        try (DeliveryFixture fixture = new DeliveryFixture("merge", DeliveryFixture.CatalogKind.SQLITE, 1)) {
            fixture.appConfig.put("delivery.kinesis.max-records-per-call", "25");
            try (AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start()) {
                fixture.awaitActive(app);
                Events events = new Events(62, 1);
                List<Shard> parents = fixture.openShards();
                int[] perParent = {50, 600, 600, 50};
                for (int i = 0; i < parents.size(); i++) {
                    fixture.produceTo(parents.get(i), events.next(perParent[i], ALL_VALID));
                }
                Shard first = fixture.merge(parents.get(0), parents.get(1));
                Shard second = fixture.merge(parents.get(2), parents.get(3));
                fixture.produceTo(first, events.next(200, ALL_VALID));
                fixture.produceTo(second, events.next(200, ALL_VALID));
                fixture.awaitDelivered(120, app);

                DeliveryFixture.Summary summary = fixture.verify(); // each id once, values compared
                System.out.printf("merge: %s into %s, %s into %s; %s%n", ids(parents.subList(0, 2)),
                        first.shardId(), ids(parents.subList(2, 4)), second.shardId(), summary);
                assertEquals(1_700, summary.rows(), "every record put, once");
                Table table = fixture.catalog().loadTable(fixture.table);
                Map<String, String> last = fixture.expectedWatermarks();
                assertReadAfterParents(table, fixture.streamArn, first, last);
                assertReadAfterParents(table, fixture.streamArn, second, last);
            }
        }
    }

    /** The delivery commit just before the first that holds the child holds both parents' last records. */
    private static void assertReadAfterParents(Table table, String streamArn, Shard child, Map<String, String> last) {
        Map<String, String> before = Map.of();
        for (Snapshot snapshot : table.snapshots()) { // in commit order; the tests keep every snapshot
            String json = snapshot.summary().get(Checkpoint.WATERMARKS_PROPERTY);
            if (json == null) {
                continue;
            }
            Map<String, String> watermarks = Checkpoint.parse(json, streamArn);
            if (watermarks.containsKey(child.shardId())) {
                for (String parent : List.of(child.parentShardId(), child.adjacentParentShardId())) {
                    assertEquals(last.get(parent), before.get(parent), child.shardId() + " was committed in snapshot "
                            + snapshot.snapshotId() + " before its parent " + parent + " was delivered to its end");
                }
                return;
            }
            before = watermarks;
        }
        fail("no commit holds " + child.shardId());
    }

    private static List<String> ids(List<Shard> shards) {
        return shards.stream().map(Shard::shardId).toList();
    }
}
