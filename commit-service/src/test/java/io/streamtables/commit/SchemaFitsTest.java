package io.streamtables.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.bus.ErrorCode;
import io.streamtables.schema.JsonSchemaMapper;
import java.nio.file.Path;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How the table takes each row schema: as it is, after it evolves, or never once Iceberg refused the evolution. */
class SchemaFitsTest {

    @TempDir
    Path dir;

    private CommitFixture f;
    private SchemaFits fits;

    @BeforeEach
    void setUp() {
        f = new CommitFixture(dir);
        fits = new SchemaFits(f.table);
        fits.writeWith(f.table.schema());
    }

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    private Types.StructType withNote() throws Exception {
        return JsonSchemaMapper.toIceberg(CommitFixture.JSON.readTree("""
                {"type": "object", "required": ["id", "ts"], "properties": {
                  "id": {"type": "integer"}, "ts": {"type": "string", "format": "date-time"},
                  "note": {"type": "string"}, "extra": {"type": "string"}}}""")).asStruct();
    }

    @Test
    void aNewColumnWaitsForTheEvolutionThenFits() throws Exception {
        Types.StructType rows = withNote();
        SchemaFits.Fit before = fits.fit(rows);
        assertNull(before.toTable(), "the table has no column extra yet");
        assertTrue(before.comparison().evolves());

        f.table.updateSchema().unionByNameWith(new Schema(rows.fields())).commit();
        f.table.refresh();
        assertNull(fits.fit(rows).toTable(), "the fit of the schema rows are written with, until the writers reopen");
        fits.writeWith(f.table.schema());
        assertNotNull(fits.fit(rows).toTable());
        assertEquals(f.table.schema().schemaId(), fits.writing().schemaId());
    }

    @Test
    void aRefusedSchemaStaysRefusedAfterTheWritersReopen() throws Exception {
        Types.StructType rows = withNote();
        fits.refuse(rows, "Iceberg refuses the change: no");
        fits.writeWith(f.table.schema());
        SchemaFits.Fit fit = fits.fit(rows);
        assertNull(fit.toTable());
        assertEquals(ErrorCode.INCOMPATIBLE_TYPE_CHANGE, fit.comparison().incompatible().code());
        assertEquals("Iceberg refuses the change: no", fit.comparison().incompatible().message());
    }
}
