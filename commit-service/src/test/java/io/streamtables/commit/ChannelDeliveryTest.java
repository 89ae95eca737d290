package io.streamtables.commit;

import static io.streamtables.commit.CommitFixture.MANIFESTS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamtables.bus.DlqBatch;
import io.streamtables.bus.ErrorCode;
import io.streamtables.bus.Reject;
import io.streamtables.bus.RowChunk;
import io.streamtables.convert.RowConverter;
import io.streamtables.schema.JsonSchemaMapper;
import io.streamtables.schema.SchemaEvolution;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rows of a newer schema version evolve the table before any of them is written, with the column ids it
 * had; rows before the new columns read as null; rows of an incompatible version are dead letters naming the change.
 */
class ChannelDeliveryTest {

    /** v2: a new optional number, a new optional struct, and note still a string. */
    static final String V2 = """
            {"type": "object", "required": ["id", "ts"], "properties": {
              "id":    {"type": "integer"},
              "ts":    {"type": "string", "format": "date-time"},
              "note":  {"type": "string"},
              "score": {"type": "number"},
              "meta":  {"type": "object", "properties": {"src": {"type": "string"}}}
            }}""";
    /** v3: note becomes an integer, a type change. */
    static final String V3 = """
            {"type": "object", "required": ["id", "ts"], "properties": {
              "id":   {"type": "integer"},
              "ts":   {"type": "string", "format": "date-time"},
              "note": {"type": "integer"}
            }}""";

    @TempDir
    Path dir;

    private CommitFixture f;
    private final List<DlqBatch> dlq = new ArrayList<>();

    @BeforeEach
    void setUp() {
        f = new CommitFixture(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    @Test
    void aNewVersionEvolvesTheTableOnceBeforeItsRowsAreWritten() throws Exception {
        ChannelDelivery d = new ChannelDelivery(f.channel, f.catalog.loadTable(f.channel.table()), f.buffer(), dlq::addAll, MANIFESTS);
        Map<String, Integer> ids = ids(d.table().schema());
        d.append(f.chunk(null, 1, 5));

        RowChunk v2 = chunk(V2, "5", 6, 10, "\"note\": \"n\", \"score\": 1.5, \"meta\": {\"src\": \"s\"}");
        ChannelBuffer.EvolutionNeededException wait = assertThrows(ChannelBuffer.EvolutionNeededException.class,
                () -> d.append(v2));
        assertEquals(ids, ids(f.catalog.loadTable(f.channel.table()).schema()), "nothing changed before the evolution");
        assertTrue(d.evolveDue(System.currentTimeMillis()), "the chunk waits for the evolution");
        List<SchemaEvolution.Difference> made = d.evolve();
        assertEquals(2, made.size(), made.toString());
        assertFalse(d.waitsToEvolve());
        assertEquals(5, d.pending().rows(), "what was buffered is cut first: its files commit on their own");
        assertTrue(d.commit());
        d.waitToEvolve(wait.rows);
        assertEquals(List.of(), d.evolve(), "another instance's evolution, or a retry: nothing more changes");

        d.append(v2);
        assertTrue(d.cut());
        assertTrue(d.commit());

        Schema evolved = f.catalog.loadTable(f.channel.table()).schema();
        ids.forEach((name, id) -> assertEquals(id, evolved.findField(name).fieldId(), "column ids stay: " + name));
        assertEquals(List.of("id", "ts", "note", "score", "meta"), evolved.columns().stream().map(c -> c.name()).toList());
        Map<Long, Record> rows = rows();
        assertEquals(10, rows.size());
        assertNull(rows.get(3L).getField("score"), "a row before the new column reads as null");
        assertNull(rows.get(3L).getField("meta"));
        assertEquals("n3", rows.get(3L).getField("note"));
        assertEquals(1.5, rows.get(8L).getField("score"));
        assertEquals("s", ((Record) rows.get(8L).getField("meta")).getField("src"));
        assertEquals("n", rows.get(8L).getField("note"));
    }

    /**
     * Another instance evolved the table while this one held a stale buffer (its shard moved away and back): the
     * buffer's discard takes the new schema, and rows of the new version are written with their new columns.
     */
    @Test
    void aBufferDiscardedAfterAnotherInstanceEvolvedTheTableWritesTheNewColumns() throws Exception {
        ChannelDelivery d = new ChannelDelivery(f.channel, f.catalog.loadTable(f.channel.table()), f.buffer(), dlq::addAll, MANIFESTS);
        d.append(f.chunk(null, 1, 5));
        f.catalog.loadTable(f.channel.table()).updateSchema()
                .unionByNameWith(JsonSchemaMapper.toIceberg(CommitFixture.JSON.readTree(V2))).commit(); // the other instance
        d.drop(); // nothing cut: the buffer is discarded

        d.append(f.chunk(null, 1, 5));
        d.append(chunk(V2, "5", 6, 10, "\"note\": \"n\", \"score\": 2.5, \"meta\": {\"src\": \"t\"}"));
        assertTrue(d.cut());
        assertTrue(d.commit());
        Map<Long, Record> rows = rows();
        assertEquals(10, rows.size());
        assertEquals(2.5, rows.get(9L).getField("score"), "written with the new column");
        assertEquals("t", ((Record) rows.get(9L).getField("meta")).getField("src"));
        assertNull(rows.get(2L).getField("score"));
    }

    @Test
    void rowsOfAnIncompatibleVersionAreDeadLettersNamingTheChange() throws Exception {
        ChannelDelivery d = new ChannelDelivery(f.channel, f.catalog.loadTable(f.channel.table()), f.buffer(), dlq::addAll, MANIFESTS);
        int schemaId = d.table().schema().schemaId();
        d.append(f.chunk(null, 1, 5));
        d.append(chunk(V3, "5", 6, 8, "\"note\": 7"));
        assertTrue(d.cut());
        assertTrue(d.commit());
        d.publish();

        assertEquals(List.of(1L, 2L, 3L, 4L, 5L), new ArrayList<>(rows().keySet()));
        assertEquals(schemaId, f.catalog.loadTable(f.channel.table()).schema().schemaId(), "the table did not change");
        List<Reject> rejects = dlq.stream().flatMap(b -> b.rejects().stream()).toList();
        assertEquals(List.of("6", "7", "8"), rejects.stream().map(Reject::sequenceNumber).toList());
        Reject r = rejects.get(0);
        assertEquals(ErrorCode.INCOMPATIBLE_TYPE_CHANGE, r.errorCode());
        assertEquals("/note", r.field());
        assertTrue(r.errorMessage().contains("column note is string, the schema's field maps to long"), r.errorMessage());
    }

    /** Rows of a schema version, as convert makes them; each is its sequence number's id. */
    private RowChunk chunk(String jsonSchema, String previous, long first, long last, String more) throws Exception {
        JsonNode tree = CommitFixture.JSON.readTree(jsonSchema);
        RowConverter converter = new RowConverter(JsonSchemaMapper.toIceberg(tree), tree);
        List<RowChunk.Row> rows = new ArrayList<>();
        for (long s = first; s <= last; s++) {
            Record value = converter.convert(CommitFixture.JSON.readTree("{\"id\": " + s + ", \"ts\": \"2024-05-01T10:00:00Z\", "
                    + more + "}"));
            rows.add(new RowChunk.Row(Long.toString(s), 0L, value));
        }
        return f.chunk(previous, rows, List.of());
    }

    private Map<Long, Record> rows() throws Exception {
        Map<Long, Record> rows = new TreeMap<>();
        f.table.refresh();
        try (CloseableIterable<Record> records = IcebergGenerics.read(f.table).build()) {
            records.forEach(r -> rows.put((Long) r.getField("id"), r.copy()));
        }
        return rows;
    }

    private static Map<String, Integer> ids(Schema schema) {
        Map<String, Integer> ids = new TreeMap<>();
        schema.columns().forEach(c -> ids.put(c.name(), c.fieldId()));
        return ids;
    }
}
