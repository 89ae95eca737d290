package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.catalog.DeliveryTables;
import io.streamtables.channel.Channel;
import io.streamtables.schema.JsonSchemaMapper;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * A channel tagged {@code delivery:existing-table=ACCEPT} delivers into a table it did not create whose
 * columns take its schema by name and type: here in another column order, with a column the schema does not have,
 * partitioned {@code day(event_time), identity(source)}. The rows read back as sent, each file in one day and source.
 */
class ExistingTableIT {

    @Test
    void deliversIntoAnExistingTableWithItsPartitionSpec() throws Exception {
        try (DeliveryFixture fixture = new DeliveryFixture("existing", DeliveryFixture.CatalogKind.SQLITE, 2)) {
            Schema mapped = JsonSchemaMapper.toIceberg(new ObjectMapper().readTree(Events.SCHEMA));
            List<Types.NestedField> columns = new ArrayList<>(mapped.columns());
            Collections.reverse(columns);
            columns.add(Types.NestedField.optional(10_000, "region", Types.StringType.get()));
            Schema theirs = new Schema(columns);
            ((SupportsNamespaces) fixture.catalog()).createNamespace(fixture.table.namespace());
            fixture.catalog().buildTable(fixture.table, theirs).withPartitionSpec(PartitionSpec.builderFor(theirs)
                    .day("event_time").identity("source").build())
                    // the catalog is delivery.catalog.*, which every bucket shares: the table says whose it is
                    .withProperty(DeliveryTables.OWNER_ACCOUNT_PROPERTY, Peers.ACCOUNT).create();
            fixture.tag(Channel.EXISTING_TABLE_TAG, "ACCEPT");

            try (AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start()) {
                fixture.awaitActive(app);
                fixture.produce(new Events(61, 1).next(800, 40));
                fixture.awaitDelivered(120, app);
                DeliveryFixture.Summary summary = fixture.verify();
                Table table = fixture.catalog().loadTable(fixture.table);
                Set<String> partitions = new TreeSet<>();
                try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
                    for (FileScanTask task : tasks) {
                        DataFile file = task.file();
                        partitions.add(table.spec().partitionToPath(file.partition()));
                    }
                }
                System.out.printf("existing table: %s; partitions %s%n", summary, partitions);
                assertEquals(780, summary.rows());
                assertTrue(DeliveryTables.adopted(table));
                assertEquals("region", table.schema().columns().get(table.schema().columns().size() - 1).name(),
                        "the table's own layout");
                assertTrue(partitions.size() > 1 && partitions.stream().allMatch(p -> p.matches(
                        "event_time_day=\\d{4}-\\d{2}-\\d{2}/source=.*")), partitions.toString());
            }
        }
    }
}
