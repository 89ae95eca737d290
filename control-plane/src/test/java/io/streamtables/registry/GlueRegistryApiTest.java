package io.streamtables.registry;

import static io.streamtables.registry.TestGlue.registryArn;
import static io.streamtables.registry.TestGlue.schemaArn;
import static io.streamtables.registry.TestGlue.unique;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.TestResourceScope;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URL;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.AlreadyExistsException;
import software.amazon.awssdk.services.glue.model.Compatibility;
import software.amazon.awssdk.services.glue.model.CreateSchemaRequest;
import software.amazon.awssdk.services.glue.model.CreateSchemaResponse;
import software.amazon.awssdk.services.glue.model.DataFormat;
import software.amazon.awssdk.services.glue.model.DeleteSchemaResponse;
import software.amazon.awssdk.services.glue.model.EntityNotFoundException;
import software.amazon.awssdk.services.glue.model.GetRegistryResponse;
import software.amazon.awssdk.services.glue.model.GetSchemaResponse;
import software.amazon.awssdk.services.glue.model.GetSchemaVersionResponse;
import software.amazon.awssdk.services.glue.model.GlueException;
import software.amazon.awssdk.services.glue.model.InvalidInputException;
import software.amazon.awssdk.services.glue.model.ListSchemasResponse;
import software.amazon.awssdk.services.glue.model.RegisterSchemaVersionResponse;
import software.amazon.awssdk.services.glue.model.RegistryListItem;
import software.amazon.awssdk.services.glue.model.SchemaListItem;

/** The Glue schema registry API, called only through the official AWS SDK v2 Glue client. */
@QuarkusTest
@WithTestResource(value = FreshTestDatabase.class, scope = TestResourceScope.GLOBAL)
class GlueRegistryApiTest {

    static final String V1 = """
            {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}""";
    /** V1 with other blanks and another key order: the same JSON tree. */
    static final String V1_REFORMATTED = """
            {
              "required" : [ "id" ],
              "properties" : { "id" : { "type" : "string" } },
              "type" : "object"
            }
            """;
    static final String V2 = """
            {"type": "object", "properties": {"id": {"type": "string"}, "n": {"type": "integer"}}, "required": ["id"]}""";

    @TestHTTPResource("/")
    URL url;

    GlueClient glue;

    @BeforeEach
    void client() {
        glue = TestGlue.client(url);
    }

    @AfterEach
    void close() {
        glue.close();
    }

    @Test
    void registriesAreCreatedReadAndListed() {
        String name = unique("reg");
        Instant before = Instant.now().minusSeconds(1);
        var created = glue.createRegistry(r -> r.registryName(name).description("test registry").tags(Map.of("team", "data")));
        assertEquals(name, created.registryName());
        assertEquals(registryArn(name), created.registryArn());
        assertEquals("test registry", created.description());
        assertEquals("data", created.tags().get("team"));

        GetRegistryResponse byName = glue.getRegistry(r -> r.registryId(id -> id.registryName(name)));
        GetRegistryResponse byArn = glue.getRegistry(r -> r.registryId(id -> id.registryArn(registryArn(name))));
        for (GetRegistryResponse got : List.of(byName, byArn)) {
            assertEquals(name, got.registryName());
            assertEquals(registryArn(name), got.registryArn());
            assertEquals("test registry", got.description());
            assertEquals("AVAILABLE", got.statusAsString());
            Instant createdTime = Instant.parse(got.createdTime());
            assertTrue(createdTime.isAfter(before) && createdTime.isBefore(Instant.now().plusSeconds(1)), got.createdTime());
            assertEquals(got.createdTime(), got.updatedTime());
        }

        List<RegistryListItem> all = glue.listRegistriesPaginator(r -> r.maxResults(2)).registries().stream().toList();
        RegistryListItem item = all.stream().filter(r -> r.registryName().equals(name)).findFirst().orElseThrow();
        assertEquals(registryArn(name), item.registryArn());
        assertEquals("AVAILABLE", item.statusAsString());
        assertEquals(byName.createdTime(), item.createdTime());
        assertEquals(all.size(), all.stream().map(RegistryListItem::registryName).distinct().count(), "no duplicates across pages");
    }

    @Test
    void registryErrors() {
        String name = unique("reg");
        glue.createRegistry(r -> r.registryName(name));

        AlreadyExistsException exists = assertThrows(AlreadyExistsException.class,
                () -> glue.createRegistry(r -> r.registryName(name)));
        assertTrue(message(exists).contains(name), message(exists));

        EntityNotFoundException missing = assertThrows(EntityNotFoundException.class,
                () -> glue.getRegistry(r -> r.registryId(id -> id.registryName(name + "-missing"))));
        assertTrue(message(missing).contains(name + "-missing"), message(missing));

        InvalidInputException badName = assertThrows(InvalidInputException.class,
                () -> glue.createRegistry(r -> r.registryName("has space")));
        assertTrue(message(badName).contains("RegistryName"), message(badName));

        InvalidInputException badArn = assertThrows(InvalidInputException.class,
                () -> glue.getRegistry(r -> r.registryId(id -> id.registryArn("arn:aws:glue:us-east-1:000000000000:schema/" + name))));
        assertTrue(message(badArn).contains("RegistryId.RegistryArn"), message(badArn));

        EntityNotFoundException otherRegion = assertThrows(EntityNotFoundException.class,
                () -> glue.getRegistry(r -> r.registryId(id -> id.registryArn("arn:aws:glue:eu-west-1:000000000000:registry/" + name))));
        assertTrue(message(otherRegion).contains("eu-west-1"), message(otherRegion));
    }

    @Test
    void schemaVersionsAreCreatedRegisteredAndRead() {
        String registry = createRegistry();
        String schema = unique("orders");
        String arn = schemaArn(registry, schema);

        CreateSchemaResponse created = glue.createSchema(createSchema(registry, schema, V1));
        assertEquals(registry, created.registryName());
        assertEquals(registryArn(registry), created.registryArn());
        assertEquals(schema, created.schemaName());
        assertEquals(arn, created.schemaArn());
        assertEquals(DataFormat.JSON, created.dataFormat());
        assertEquals(Compatibility.BACKWARD, created.compatibility(), "the AWS default");
        assertEquals(1L, created.latestSchemaVersion());
        assertEquals(2L, created.nextSchemaVersion());
        assertEquals("AVAILABLE", created.schemaStatusAsString());
        assertEquals("AVAILABLE", created.schemaVersionStatusAsString());
        String v1 = created.schemaVersionId();
        UUID.fromString(v1);

        GetSchemaResponse got = glue.getSchema(r -> r.schemaId(id -> id.registryName(registry).schemaName(schema)));
        assertEquals(arn, got.schemaArn());
        assertEquals(1L, got.latestSchemaVersion());
        assertEquals(DataFormat.JSON, got.dataFormat());
        Instant.parse(got.createdTime());

        RegisterSchemaVersionResponse registered = glue.registerSchemaVersion(r -> r.schemaId(id -> id.schemaArn(arn))
                .schemaDefinition(V2));
        assertEquals(2L, registered.versionNumber());
        assertEquals("AVAILABLE", registered.statusAsString());
        String v2 = registered.schemaVersionId();
        assertNotEquals(v1, v2);
        assertEquals(2L, glue.getSchema(r -> r.schemaId(id -> id.schemaArn(arn))).latestSchemaVersion());
        assertEquals(3L, glue.getSchema(r -> r.schemaId(id -> id.schemaArn(arn))).nextSchemaVersion());

        GetSchemaVersionResponse byId = glue.getSchemaVersion(r -> r.schemaVersionId(v2));
        assertVersion(byId, v2, 2, V2, arn);
        GetSchemaVersionResponse latest = glue.getSchemaVersion(r -> r.schemaId(id -> id.schemaArn(arn))
                .schemaVersionNumber(n -> n.latestVersion(true)));
        assertVersion(latest, v2, 2, V2, arn);
        GetSchemaVersionResponse first = glue.getSchemaVersion(r -> r.schemaId(id -> id.schemaArn(arn))
                .schemaVersionNumber(n -> n.versionNumber(1L)));
        assertVersion(first, v1, 1, V1, arn);
        GetSchemaVersionResponse byName = glue.getSchemaVersion(r -> r.schemaId(id -> id.registryName(registry)
                .schemaName(schema)).schemaVersionNumber(n -> n.versionNumber(2L)));
        assertVersion(byName, v2, 2, V2, arn);

        EntityNotFoundException noVersion = assertThrows(EntityNotFoundException.class, () -> glue.getSchemaVersion(
                r -> r.schemaId(id -> id.schemaArn(arn)).schemaVersionNumber(n -> n.versionNumber(3L))));
        assertTrue(message(noVersion).contains("3"), message(noVersion));
        assertThrows(EntityNotFoundException.class,
                () -> glue.getSchemaVersion(r -> r.schemaVersionId(UUID.randomUUID().toString())));
        InvalidInputException both = assertThrows(InvalidInputException.class, () -> glue.getSchemaVersion(
                r -> r.schemaVersionId(v1).schemaId(id -> id.schemaArn(arn))));
        assertTrue(message(both).contains("SchemaVersionId"), message(both));
        InvalidInputException noNumber = assertThrows(InvalidInputException.class,
                () -> glue.getSchemaVersion(r -> r.schemaId(id -> id.schemaArn(arn))));
        assertTrue(message(noNumber).contains("SchemaVersionNumber"), message(noNumber));
    }

    @Test
    void anEqualDefinitionIsTheExistingVersion() {
        String registry = createRegistry();
        String schema = unique("orders");
        String arn = schemaArn(registry, schema);
        String v1 = glue.createSchema(createSchema(registry, schema, V1)).schemaVersionId();
        String v2 = glue.registerSchemaVersion(r -> r.schemaId(id -> id.schemaArn(arn)).schemaDefinition(V2))
                .schemaVersionId();

        RegisterSchemaVersionResponse again = glue.registerSchemaVersion(r -> r.schemaId(id -> id.schemaArn(arn))
                .schemaDefinition(V1_REFORMATTED));
        assertEquals(v1, again.schemaVersionId());
        assertEquals(1L, again.versionNumber());
        RegisterSchemaVersionResponse sameAsLatest = glue.registerSchemaVersion(r -> r.schemaId(id -> id.schemaArn(arn))
                .schemaDefinition(V2));
        assertEquals(v2, sameAsLatest.schemaVersionId());
        assertEquals(2L, glue.getSchema(r -> r.schemaId(id -> id.schemaArn(arn))).latestSchemaVersion(),
                "no version was added");
    }

    @Test
    void schemaByDefinitionIgnoresBlanksAndKeyOrder() {
        String registry = createRegistry();
        String schema = unique("orders");
        String arn = schemaArn(registry, schema);
        String v1 = glue.createSchema(createSchema(registry, schema, V1)).schemaVersionId();
        String v2 = glue.registerSchemaVersion(r -> r.schemaId(id -> id.schemaArn(arn)).schemaDefinition(V2))
                .schemaVersionId();

        var first = glue.getSchemaByDefinition(r -> r.schemaId(id -> id.registryName(registry).schemaName(schema))
                .schemaDefinition(V1_REFORMATTED));
        assertEquals(v1, first.schemaVersionId());
        assertEquals(arn, first.schemaArn());
        assertEquals(DataFormat.JSON, first.dataFormat());
        assertEquals("AVAILABLE", first.statusAsString());
        Instant.parse(first.createdTime());
        assertEquals(v2, glue.getSchemaByDefinition(r -> r.schemaId(id -> id.schemaArn(arn))
                .schemaDefinition("  " + V2 + "\n")).schemaVersionId());

        EntityNotFoundException unknown = assertThrows(EntityNotFoundException.class,
                () -> glue.getSchemaByDefinition(r -> r.schemaId(id -> id.schemaArn(arn))
                        .schemaDefinition("{\"type\": \"object\"}")));
        assertTrue(message(unknown).contains("SchemaDefinition"), message(unknown));
    }

    @Test
    void schemasAreListedPerRegistry() {
        String registry = createRegistry();
        String other = createRegistry();
        List<String> names = List.of("a-" + unique("s"), "b-" + unique("s"), "c-" + unique("s"));
        names.forEach(n -> glue.createSchema(createSchema(registry, n, V1)));
        glue.createSchema(createSchema(other, "a-" + unique("s"), V1));

        ListSchemasResponse page1 = glue.listSchemas(r -> r.registryId(id -> id.registryName(registry)).maxResults(2));
        assertEquals(names.subList(0, 2), page1.schemas().stream().map(SchemaListItem::schemaName).toList());
        assertTrue(page1.nextToken() != null, "a next page");
        ListSchemasResponse page2 = glue.listSchemas(r -> r.registryId(id -> id.registryArn(registryArn(registry)))
                .maxResults(2).nextToken(page1.nextToken()));
        assertEquals(names.subList(2, 3), page2.schemas().stream().map(SchemaListItem::schemaName).toList());
        assertNull(page2.nextToken());

        List<SchemaListItem> all = glue.listSchemas(r -> r.registryId(id -> id.registryName(registry))).schemas();
        assertEquals(names, all.stream().map(SchemaListItem::schemaName).toList());
        SchemaListItem item = all.get(0);
        assertEquals(registry, item.registryName());
        assertEquals(schemaArn(registry, names.get(0)), item.schemaArn());
        assertEquals("AVAILABLE", item.schemaStatusAsString());
        Instant.parse(item.createdTime());

        List<String> everywhere = glue.listSchemasPaginator(r -> r.maxResults(100)).schemas().stream()
                .map(SchemaListItem::schemaArn).toList();
        assertTrue(everywhere.containsAll(names.stream().map(n -> schemaArn(registry, n)).toList()));
        assertTrue(everywhere.stream().anyMatch(a -> a.contains(":schema/" + other + "/")));

        assertThrows(EntityNotFoundException.class,
                () -> glue.listSchemas(r -> r.registryId(id -> id.registryName(registry + "-missing"))));
        assertThrows(InvalidInputException.class,
                () -> glue.listSchemas(r -> r.registryId(id -> id.registryName(registry)).nextToken("not-a-token")));
    }

    @Test
    void deleteSchemaRemovesItAndItsVersions() {
        String registry = createRegistry();
        String schema = unique("orders");
        String arn = schemaArn(registry, schema);
        String v1 = glue.createSchema(createSchema(registry, schema, V1)).schemaVersionId();

        DeleteSchemaResponse deleted = glue.deleteSchema(r -> r.schemaId(id -> id.schemaArn(arn)));
        assertEquals(arn, deleted.schemaArn());
        assertEquals(schema, deleted.schemaName());
        assertEquals("DELETING", deleted.statusAsString());

        assertThrows(EntityNotFoundException.class, () -> glue.getSchema(r -> r.schemaId(id -> id.schemaArn(arn))));
        assertThrows(EntityNotFoundException.class, () -> glue.getSchemaVersion(r -> r.schemaVersionId(v1)));
        assertThrows(EntityNotFoundException.class, () -> glue.deleteSchema(r -> r.schemaId(id -> id.schemaArn(arn))));
        assertTrue(glue.listSchemas(r -> r.registryId(id -> id.registryName(registry))).schemas().isEmpty());

        CreateSchemaResponse recreated = glue.createSchema(createSchema(registry, schema, V2));
        assertEquals(1L, recreated.latestSchemaVersion(), "a new schema starts again at version 1");
    }

    @Test
    void aSchemaWithoutRegistryGoesToTheDefaultRegistry() {
        String schema = unique("plain");
        CreateSchemaResponse created = glue.createSchema(r -> r.schemaName(schema).dataFormat(DataFormat.JSON)
                .schemaDefinition(V1));
        assertEquals("default-registry", created.registryName());
        assertEquals(schemaArn("default-registry", schema), created.schemaArn());
        assertEquals("default-registry", glue.getRegistry(r -> r.registryId(id -> id.registryName("default-registry")))
                .registryName());
        assertEquals(created.schemaArn(), glue.getSchema(r -> r.schemaId(id -> id.schemaName(schema))).schemaArn());
    }

    @Test
    void schemaErrors() {
        String registry = createRegistry();
        String schema = unique("orders");

        InvalidInputException avro = assertThrows(InvalidInputException.class, () -> glue.createSchema(
                r -> r.registryId(id -> id.registryName(registry)).schemaName(schema).dataFormat(DataFormat.AVRO)
                        .schemaDefinition("{\"type\": \"record\", \"name\": \"x\", \"fields\": []}")));
        assertTrue(message(avro).contains("only JSON"), message(avro));

        for (String notAnObject : List.of("[1, 2]", "\"text\"", "not json", "{\"a\": 1} trailing", "{\"a\": 1, \"a\": 2}")) {
            InvalidInputException bad = assertThrows(InvalidInputException.class,
                    () -> glue.createSchema(createSchema(registry, schema, notAnObject)), notAnObject);
            assertTrue(message(bad).contains("SchemaDefinition"), message(bad));
        }

        InvalidInputException badName = assertThrows(InvalidInputException.class,
                () -> glue.createSchema(createSchema(registry, "no/slash", V1)));
        assertTrue(message(badName).contains("SchemaName"), message(badName));

        EntityNotFoundException noRegistry = assertThrows(EntityNotFoundException.class,
                () -> glue.createSchema(createSchema(registry + "-missing", schema, V1)));
        assertTrue(message(noRegistry).contains(registry + "-missing"), message(noRegistry));

        glue.createSchema(createSchema(registry, schema, V1));
        AlreadyExistsException twice = assertThrows(AlreadyExistsException.class,
                () -> glue.createSchema(createSchema(registry, schema, V2)));
        assertTrue(message(twice).contains(schema), message(twice));

        // a pattern only a backtracking engine runs is refused, naming where it is
        InvalidInputException backtracking = assertThrows(InvalidInputException.class,
                () -> glue.registerSchemaVersion(r -> r.schemaId(id -> id.schemaArn(schemaArn(registry, schema)))
                        .schemaDefinition("{\"type\": \"object\", \"properties\": {\"code\": {\"type\": \"string\", "
                                + "\"pattern\": \"^(a)\\\\1$\"}}}")));
        assertTrue(message(backtracking).contains("/properties/code/pattern") && message(backtracking).contains("linear time"),
                message(backtracking));

        InvalidInputException notObjectVersion = assertThrows(InvalidInputException.class,
                () -> glue.registerSchemaVersion(r -> r.schemaId(id -> id.schemaArn(schemaArn(registry, schema)))
                        .schemaDefinition("[]")));
        assertTrue(message(notObjectVersion).contains("JSON object"), message(notObjectVersion));

        EntityNotFoundException noSchema = assertThrows(EntityNotFoundException.class,
                () -> glue.registerSchemaVersion(r -> r.schemaId(id -> id.schemaArn(schemaArn(registry, schema + "-x")))
                        .schemaDefinition(V1)));
        assertTrue(message(noSchema).contains(schema + "-x"), message(noSchema));

        InvalidInputException badArn = assertThrows(InvalidInputException.class,
                () -> glue.getSchema(r -> r.schemaId(id -> id.schemaArn("arn:aws:glue:us-east-1:000000000000:schema/" + schema))));
        assertTrue(message(badArn).contains("SchemaId.SchemaArn"), message(badArn));
    }

    /** SPEC F4: a definition of another dialect than draft-04 or draft-07 is refused where it is registered. */
    @Test
    void anotherDialectIsRefused() {
        String registry = createRegistry();
        String schema = unique("dialects");
        String draft2020 = "{\"$schema\": \"https://json-schema.org/draft/2020-12/schema\", " + V1.substring(1);
        InvalidInputException created = assertThrows(InvalidInputException.class,
                () -> glue.createSchema(createSchema(registry, schema, draft2020)));
        assertEquals("SchemaDefinition schema root: $schema must be draft-04 (http://json-schema.org/draft-04/schema#) "
                + "or draft-07 (http://json-schema.org/draft-07/schema#, the default): got "
                + "https://json-schema.org/draft/2020-12/schema", message(created));

        glue.createSchema(createSchema(registry, schema, "{\"$schema\": \"http://json-schema.org/draft-04/schema#\", "
                + V1.substring(1)));
        InvalidInputException registered = assertThrows(InvalidInputException.class,
                () -> glue.registerSchemaVersion(r -> r.schemaId(id -> id.schemaArn(schemaArn(registry, schema)))
                        .schemaDefinition("{\"$schema\": \"http://json-schema.org/draft-06/schema#\", "
                                + V2.substring(1))));
        assertTrue(message(registered).endsWith("got http://json-schema.org/draft-06/schema#"), message(registered));
        assertEquals(1L, glue.getSchema(r -> r.schemaId(id -> id.schemaArn(schemaArn(registry, schema))))
                .latestSchemaVersion(), "no version was added");
    }

    @Test
    void disabledCompatibilityAllowsNoNewVersion() {
        String registry = createRegistry();
        String schema = unique("frozen");
        String arn = schemaArn(registry, schema);
        String v1 = glue.createSchema(createSchema(registry, schema, V1).toBuilder()
                .compatibility(Compatibility.DISABLED).build()).schemaVersionId();
        assertEquals(v1, glue.registerSchemaVersion(r -> r.schemaId(id -> id.schemaArn(arn))
                .schemaDefinition(V1_REFORMATTED)).schemaVersionId());
        InvalidInputException refused = assertThrows(InvalidInputException.class,
                () -> glue.registerSchemaVersion(r -> r.schemaId(id -> id.schemaArn(arn)).schemaDefinition(V2)));
        assertTrue(message(refused).contains("DISABLED"), message(refused));
    }

    private String createRegistry() {
        String name = unique("reg");
        glue.createRegistry(r -> r.registryName(name));
        return name;
    }

    private static CreateSchemaRequest createSchema(String registry, String schema, String definition) {
        return CreateSchemaRequest.builder().registryId(id -> id.registryName(registry)).schemaName(schema)
                .dataFormat(DataFormat.JSON).schemaDefinition(definition).build();
    }

    private static void assertVersion(GetSchemaVersionResponse v, String id, long number, String definition, String arn) {
        assertEquals(id, v.schemaVersionId());
        assertEquals(number, v.versionNumber());
        assertEquals(definition, v.schemaDefinition());
        assertEquals(arn, v.schemaArn());
        assertEquals(DataFormat.JSON, v.dataFormat());
        assertEquals("AVAILABLE", v.statusAsString());
        assertTrue(Duration.between(Instant.parse(v.createdTime()), Instant.now()).toMinutes() < 5, v.createdTime());
    }

    private static String message(GlueException e) {
        return e.awsErrorDetails().errorMessage();
    }
}
