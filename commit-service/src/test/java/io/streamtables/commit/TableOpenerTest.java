package io.streamtables.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.catalog.DeliveryTables;
import io.streamtables.catalog.IncompatibleTableException;
import io.streamtables.channel.Channel;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SPEC S7: the channel creates its table and refuses one it did not create, or one changed outside (SPEC C4). */
class TableOpenerTest {

    @TempDir
    Path dir;

    private CommitFixture f;

    @BeforeEach
    void setUp() {
        f = new CommitFixture(dir); // creates namespace "sales" and table "orders" for the channel
    }

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    @Test
    void createsAnHourPartitionedTableItOwns() {
        Table table = f.table;
        assertEquals(f.channel.arn(), table.properties().get(DeliveryTables.CHANNEL_ARN_PROPERTY));
        assertEquals("zstd", table.properties().get(TableProperties.PARQUET_COMPRESSION));
        assertEquals("0", table.properties().get(TableProperties.COMMIT_NUM_RETRIES));
        assertEquals("65536", table.properties().get(TableProperties.PARQUET_DICT_SIZE_BYTES));
        assertEquals(2, ((HasTableOperations) table).operations().current().formatVersion());
        assertEquals(1, table.spec().fields().size());
        PartitionField field = table.spec().fields().get(0);
        assertEquals("hour", field.transform().toString());
        assertEquals("ts", table.schema().findColumnName(field.sourceId()));
    }

    @Test
    void keepsTheLastHundredMetadataFiles() throws Exception {
        for (int i = 0; i < 110; i++) {
            f.table.newAppend().commit(); // an empty snapshot: one more metadata file
        }
        Path metadata = Path.of(URI.create(f.table.location()).getPath(), "metadata");
        try (Stream<Path> files = Files.list(metadata)) {
            long kept = files.filter(p -> p.getFileName().toString().endsWith(".metadata.json")).count();
            assertEquals(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX_DEFAULT + 1, kept); // the current one too
        }
        assertEquals(110, f.table.history().size()); // the snapshots stay: expiring them is maintenance (SPEC O4)
    }

    @Test
    void reopensItsOwnTable() {
        Table again = TableOpener.open(f.catalog, f.channel, f.schema);
        assertEquals(f.table.uuid(), again.uuid());
    }

    @Test
    void refusesATableCreatedOutsideTheService() {
        f.catalog.createTable(TableIdentifier.of("sales", "foreign"), f.schema);
        Channel channel = CommitFixture.channel("orders-channel", "foreign");
        TableOpener.TableNotOwnedException e = assertThrows(TableOpener.TableNotOwnedException.class,
                () -> TableOpener.open(f.catalog, channel, f.schema));
        assertTrue(e.getMessage().contains("sales.foreign"), e::getMessage);
    }

    @Test
    void refusesAnotherChannelsTable() {
        Channel other = CommitFixture.channel("other-channel", "orders");
        TableOpener.TableNotOwnedException e = assertThrows(TableOpener.TableNotOwnedException.class,
                () -> TableOpener.open(f.catalog, other, f.schema));
        assertTrue(e.getMessage().contains(f.channel.arn()), e::getMessage);
    }

    @Test
    void refusesItsTableRepartitionedOutsideTheService() {
        f.catalog.loadTable(f.channel.table()).updateSpec().removeField("ts_hour").addField(Expressions.day("ts"))
                .commit();
        IncompatibleTableException e = assertThrows(IncompatibleTableException.class,
                () -> TableOpener.open(f.catalog, f.channel, f.schema));
        assertTrue(e.getMessage().contains("not hour(ts)"), e.getMessage());
    }

    @Test
    void aPartitionColumnRenamedOrRetypedIsReported() {
        assertEquals(null, DeliveryTables.partitionProblem(f.table, "ts"));
        f.table.updateSchema().renameColumn("ts", "ts2").commit();
        f.table.refresh();
        assertTrue(DeliveryTables.partitionProblem(f.table, "ts").contains("dropped or renamed"));
        assertTrue(DeliveryTables.partitionProblem(f.table, "note").contains("is now string"));
    }
}
