package io.streamtables.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.catalog.DeliveryTables;
import io.streamtables.watermarks.Checkpoint;
import io.streamtables.watermarks.IncompatibleTableException;
import io.streamtables.channel.Channel;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
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
        assertEquals(f.channel.arn(), table.properties().get(Checkpoint.CHANNEL_ARN_PROPERTY));
        assertEquals("parquet", table.properties().get(TableProperties.DEFAULT_FILE_FORMAT));
        assertEquals("zstd", table.properties().get(TableProperties.PARQUET_COMPRESSION));
        assertEquals("snappy", table.properties().get(TableProperties.MANIFEST_COMPRESSION));
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
        Table again = TableOpener.open(f.catalog, false, f.channel, f.schema, null);
        assertEquals(f.table.uuid(), again.uuid());
    }

    @Test
    void refusesATableCreatedOutsideTheService() {
        f.catalog.createTable(TableIdentifier.of("sales", "foreign"), f.schema);
        Channel channel = CommitFixture.channel("orders-channel", "foreign");
        TableOpener.TableNotOwnedException e = assertThrows(TableOpener.TableNotOwnedException.class,
                () -> TableOpener.open(f.catalog, false, channel, f.schema, null));
        assertTrue(e.getMessage().contains("sales.foreign"), e::getMessage);
    }

    @Test
    void refusesAnotherChannelsTable() {
        Channel other = CommitFixture.channel("other-channel", "orders");
        TableOpener.TableNotOwnedException e = assertThrows(TableOpener.TableNotOwnedException.class,
                () -> TableOpener.open(f.catalog, false, other, f.schema, null));
        assertTrue(e.getMessage().contains(f.channel.arn()), e::getMessage);
    }

    /**
     * In a catalog several accounts' buckets share, the reason a tenant reads names no other account's channel, ARN
     * or account id.
     */
    @Test
    void refusesAnotherAccountsTableWithoutNamingIt() {
        String theirs = "arn:aws:kinesis:us-east-1:111111111111:channel/their-secret-channel";
        f.table.updateProperties().set(Checkpoint.CHANNEL_ARN_PROPERTY, theirs).commit();
        TableOpener.TableNotOwnedException e = assertThrows(TableOpener.TableNotOwnedException.class,
                () -> TableOpener.open(f.catalog, false, f.channel, f.schema, null));
        assertTrue(e.getMessage().contains("another account's channel"), e::getMessage);
        assertFalse(e.getMessage().contains("111111111111") || e.getMessage().contains("their-secret-channel"),
                e::getMessage);
    }

    /**
     * Maintenance touches only a table the channel created: not another channel's (a table not adopted is not enough:
     * a channel whose first commit has not yet found the table taken would compact and expire another channel's
     * table), nor one it adopted.
     */
    @Test
    void maintenanceTouchesOnlyATableTheChannelCreated() {
        assertTrue(DeliveryTables.maintainedBy(f.table, f.channel.arn()));
        assertFalse(DeliveryTables.maintainedBy(f.table, CommitFixture.channel("other-channel", "orders").arn()));
        f.table.updateProperties().set(DeliveryTables.ADOPTED_PROPERTY, "true").commit();
        assertFalse(DeliveryTables.maintainedBy(f.table, f.channel.arn()));
    }

    @Test
    void refusesItsTableRepartitionedOutsideTheService() {
        f.catalog.loadTable(f.channel.table()).updateSpec().removeField("ts_hour").addField(Expressions.day("ts"))
                .commit();
        IncompatibleTableException e = assertThrows(IncompatibleTableException.class,
                () -> TableOpener.open(f.catalog, false, f.channel, f.schema, null));
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

    /**
     * A channel tagged to accept existing tables delivers into one whose columns take its schema by name
     * (other order, other ids, an extra optional column), partitioned as the table is; it marks the
     * table as adopted, after which another channel is refused.
     */
    @Test
    void adoptsAnExistingTableWhoseColumnsTakeTheSchema() {
        Schema theirs = new Schema(
                Types.NestedField.optional(7, "region", Types.StringType.get()),
                Types.NestedField.optional(8, "note", Types.StringType.get()),
                Types.NestedField.required(9, "ts", Types.TimestampType.withZone()),
                Types.NestedField.required(10, "id", Types.LongType.get()));
        f.catalog.buildTable(TableIdentifier.of("sales", "existing"), theirs).withPartitionSpec(
                PartitionSpec.builderFor(theirs).day("ts").identity("region").build()).create();
        Channel refusing = CommitFixture.channel("refusing", "existing");
        assertTrue(assertThrows(TableOpener.TableNotOwnedException.class,
                () -> TableOpener.open(f.catalog, false, refusing, f.schema, null)).getMessage()
                .contains("delivery:existing-table=ACCEPT"), "the refusal names the opt-in");

        Channel accepting = CommitFixture.accepting("accepting", "existing");
        Table table = TableOpener.open(f.catalog, false, accepting, f.schema, null);
        assertEquals(accepting.arn(), table.properties().get(Checkpoint.CHANNEL_ARN_PROPERTY));
        assertTrue(DeliveryTables.adopted(table));
        assertEquals(List.of("day(ts)", "identity(region)"), table.spec().fields().stream().map(p -> p.transform()
                + "(" + table.schema().findColumnName(p.sourceId()) + ")").toList(), "its partitioning is the table's");
        assertEquals(table.uuid(), TableOpener.open(f.catalog, false, accepting, f.schema, null).uuid(), "reopened");
        assertThrows(TableOpener.TableNotOwnedException.class,
                () -> TableOpener.open(f.catalog, false, CommitFixture.accepting("another", "existing"), f.schema, null));

        Record row = f.row("42", "2026-12-02T10:15:00Z").value();
        Record projected = RowProjection.of(f.schema, table.schema()).apply(row);
        assertEquals(42L, projected.getField("id"));
        assertEquals(row.getField("ts"), projected.getField("ts"));
        assertEquals("n42", projected.getField("note").toString());
        assertEquals(null, projected.getField("region"), "a column the schema does not have stays null");
        assertEquals(projected, RowProjection.of(table.schema(), table.schema()).apply(projected), "same: as is");
    }

    /**
     * In a catalog other table buckets share, an accepting channel adopts only a table that names its account as
     * owner, and a refusal says nothing of the columns of a table that is not its account's: before, it adopted any
     * table nobody created (and evolved it), and its reason named the columns a schema needed.
     */
    @Test
    void inASharedCatalogOnlyATableOfTheChannelsAccountIsAdopted() {
        Schema retyped = new Schema(Types.NestedField.required(1, "id", Types.StringType.get()),
                Types.NestedField.required(2, "ts", Types.TimestampType.withZone()),
                Types.NestedField.optional(3, "secret_note", Types.StringType.get()));
        f.catalog.createTable(TableIdentifier.of("sales", "theirs"), f.schema);
        f.catalog.createTable(TableIdentifier.of("sales", "retyped"), retyped);
        for (String name : List.of("theirs", "retyped")) {
            String reason = assertThrows(TableOpener.TableNotOwnedException.class, () -> TableOpener.open(f.catalog,
                    true, CommitFixture.accepting("c-" + name, name), f.schema, null)).getMessage();
            assertTrue(reason.contains(DeliveryTables.OWNER_ACCOUNT_PROPERTY) && !reason.contains("column")
                    && !reason.contains("secret_note") && !reason.contains("string"), reason);
            assertNull(f.catalog.loadTable(TableIdentifier.of("sales", name)).properties()
                    .get(Checkpoint.CHANNEL_ARN_PROPERTY), "not marked as the channel's");
        }
        Table theirs = f.catalog.loadTable(TableIdentifier.of("sales", "theirs"));
        theirs.updateProperties().set(DeliveryTables.OWNER_ACCOUNT_PROPERTY, "111111111111").commit();
        assertThrows(TableOpener.TableNotOwnedException.class, () -> TableOpener.open(f.catalog, true,
                CommitFixture.accepting("c-theirs", "theirs"), f.schema, null), "another account's");
        theirs.updateProperties().set(DeliveryTables.OWNER_ACCOUNT_PROPERTY, "000000000000").commit();
        assertTrue(DeliveryTables.adopted(TableOpener.open(f.catalog, true, CommitFixture.accepting("c-theirs",
                "theirs"), f.schema, null)), "the channel's own account's");
    }

    @Test
    void refusesAnExistingTableThatCannotTakeTheRowsNamingTheColumn() {
        Schema retyped = new Schema(Types.NestedField.required(1, "id", Types.StringType.get()),
                Types.NestedField.required(2, "ts", Types.TimestampType.withZone()),
                Types.NestedField.optional(3, "note", Types.StringType.get()));
        Schema extraRequired = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.required(2, "ts", Types.TimestampType.withZone()),
                Types.NestedField.optional(3, "note", Types.StringType.get()),
                Types.NestedField.required(4, "region", Types.StringType.get()));
        Schema missing = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.required(2, "ts", Types.TimestampType.withZone()));
        Map<String, Schema> cases = Map.of(
                "column id is string, the schema's field maps to long", retyped,
                "column region is required and the schema has no field of that name", extraRequired,
                "it has no column note for the schema's field of that name", missing);
        cases.forEach((reason, schema) -> {
            String name = "t" + Math.abs(reason.hashCode());
            f.catalog.createTable(TableIdentifier.of("sales", name), schema);
            TableOpener.TableNotOwnedException e = assertThrows(TableOpener.TableNotOwnedException.class,
                    () -> TableOpener.open(f.catalog, false, CommitFixture.accepting("c" + name, name), f.schema, null));
            assertTrue(e.getMessage().contains(reason), e.getMessage());
        });
    }
}
