package io.streamtables.registry;

import static io.streamtables.registry.TestGlue.schemaArn;
import static io.streamtables.registry.TestGlue.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.DataFormat;
import software.amazon.awssdk.services.glue.model.GetSchemaResponse;
import software.amazon.awssdk.services.glue.model.GetSchemaVersionResponse;

/**
 * The declarative bootstrap: {@code <delivery.schemas-dir>/<REGISTRY>/<SCHEMA>.json} becomes a registry and a JSON
 * schema, read back through the official Glue client.
 */
@QuarkusTest
@WithTestResource(value = FreshTestDatabase.class, scope = TestResourceScope.GLOBAL)
class SchemaFileImportTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TestHTTPResource("/")
    URL url;

    @Inject
    GlueRegistryApi api;

    GlueClient glue;

    @BeforeEach
    void client() {
        glue = TestGlue.client(url);
    }

    @AfterEach
    void close() {
        glue.close();
    }

    /** src/test/resources/schemas/file-registry/orders.json, imported when the application started. */
    @Test
    void theSchemaFolderIsImportedAtStartUp() throws IOException {
        String arn = schemaArn("file-registry", "orders");
        GetSchemaResponse schema = glue.getSchema(r -> r.schemaId(id -> id.schemaArn(arn)));
        assertEquals("file-registry", schema.registryName());
        assertEquals("orders", schema.schemaName());
        assertEquals(DataFormat.JSON, schema.dataFormat());

        GetSchemaVersionResponse latest = glue.getSchemaVersion(r -> r.schemaId(id -> id.schemaArn(arn))
                .schemaVersionNumber(n -> n.latestVersion(true)));
        assertEquals(JSON.readTree(Files.readString(Path.of("src/test/resources/schemas/file-registry/orders.json"))),
                JSON.readTree(latest.schemaDefinition()));
        assertEquals(latest.schemaVersionId(), glue.getSchemaVersion(r -> r.schemaVersionId(latest.schemaVersionId()))
                .schemaVersionId());
    }

    @Test
    void aChangedFileBecomesANewVersionAndAnUnchangedOneDoesNot(@TempDir Path dir) throws IOException {
        String registry = unique("files");
        String arn = schemaArn(registry, "events");
        Path file = Files.createDirectories(dir.resolve(registry)).resolve("events.json");

        Files.writeString(file, "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"string\"}}}");
        api.importSchemaFiles(dir);
        assertEquals(1L, glue.getSchema(r -> r.schemaId(id -> id.schemaArn(arn))).latestSchemaVersion());

        // same tree, other formatting: nothing to add
        Files.writeString(file, "{ \"properties\": {\"a\": {\"type\": \"string\"}},\n  \"type\": \"object\" }");
        api.importSchemaFiles(dir);
        assertEquals(1L, glue.getSchema(r -> r.schemaId(id -> id.schemaArn(arn))).latestSchemaVersion());

        String changed = "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"string\"}, \"b\": {\"type\": \"integer\"}}}";
        Files.writeString(file, changed);
        api.importSchemaFiles(dir);
        GetSchemaResponse schema = glue.getSchema(r -> r.schemaId(id -> id.schemaArn(arn)));
        assertEquals(2L, schema.latestSchemaVersion());
        assertEquals(changed, glue.getSchemaVersion(r -> r.schemaId(id -> id.schemaArn(arn))
                .schemaVersionNumber(n -> n.latestVersion(true))).schemaDefinition());
    }

    @Test
    void aFileThatIsNotASchemaStopsTheImportWithItsName(@TempDir Path dir) throws IOException {
        String registry = unique("files");
        Path file = Files.createDirectories(dir.resolve(registry)).resolve("broken.json");
        Files.writeString(file, "[\"not\", \"an\", \"object\"]");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> api.importSchemaFiles(dir));
        assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("JSON object"), e.getMessage());
    }

    @Test
    void aMissingFolderIsSkipped(@TempDir Path dir) {
        api.importSchemaFiles(dir.resolve("absent"));
    }
}
