package io.streamtables.registry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.net.URL;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.glue.GlueClient;
import software.amazon.awssdk.services.glue.model.CreateSchemaRequest;
import software.amazon.awssdk.services.glue.model.DataFormat;
import software.amazon.awssdk.services.glue.model.InvalidInputException;
import software.amazon.awssdk.services.glue.model.ListRegistriesResponse;
import software.amazon.awssdk.services.glue.model.ListSchemaVersionsResponse;
import software.amazon.awssdk.services.glue.model.ListSchemasResponse;
import software.amazon.awssdk.services.glue.model.RegistryListItem;
import software.amazon.awssdk.services.glue.model.ResourceNumberLimitExceededException;
import software.amazon.awssdk.services.glue.model.SchemaListItem;
import software.amazon.awssdk.services.glue.model.SchemaVersionListItem;

/**
 * Through the official Glue client, in one process on SQLite: {@value #THREADS} threads creating at once in an
 * account {@value #FREE} short of its quota ({@value #QUOTA}) create exactly {@value #FREE}, the others refused
 * naming the setting; and the List operations without MaxResults answer Glue's page of {@value #PAGE} with a
 * NextToken, which the SDK's paginators follow to every row. An account of its own per test and run (the test
 * database outlives runs).
 */
@QuarkusTest
@TestProfile(RegistryPagesTest.Quotas.class)
class RegistryPagesTest {

    static final int QUOTA = 30;
    static final int THREADS = 40;
    /** Room left under the quota when the threads start. */
    static final int FREE = 5;
    static final int PAGE = 25;
    static final List<String> PRINCIPALS = List.of("race-registries", "race-schemas", "race-versions",
            "pages-registries", "pages-schemas", "pages-versions");

    public static class Quotas implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> settings = new HashMap<>(Map.of(
                    "delivery.quotas.registries-per-account", "" + QUOTA,
                    "delivery.quotas.schemas-per-account", "" + QUOTA,
                    "delivery.quotas.versions-per-schema", "" + QUOTA));
            for (String p : PRINCIPALS) {
                String prefix = "delivery.auth.principals." + p + ".";
                settings.put(prefix + "access-key-id", key(p));
                settings.put(prefix + "secret-access-key", p + "-secret");
                settings.put(prefix + "account-id", String.format("%012d",
                        ThreadLocalRandom.current().nextLong(200_000_000_000L, 999_999_999_999L)));
            }
            return settings;
        }
    }

    @TestHTTPResource("/")
    URL url;

    @Test
    void registriesRaceToTheQuota() throws Exception {
        try (GlueClient glue = client("race-registries")) {
            IntStream.range(0, QUOTA - FREE).forEach(i -> glue.createRegistry(r -> r.registryName("before" + i)));
            race(glue, "registries-per-account", i -> glue.createRegistry(r -> r.registryName("r" + i)));
            assertEquals(QUOTA, glue.listRegistriesPaginator(r -> { }).registries().stream().count());
        }
    }

    @Test
    void schemasRaceToTheQuota() throws Exception {
        try (GlueClient glue = client("race-schemas")) {
            glue.createRegistry(r -> r.registryName("r"));
            IntStream.range(0, QUOTA - FREE).forEach(i -> glue.createSchema(createSchema("before" + i, definition(i))));
            race(glue, "schemas-per-account", i -> glue.createSchema(createSchema("s" + i, definition(i))));
            assertEquals(QUOTA, glue.listSchemasPaginator(r -> { }).schemas().stream().count());
        }
    }

    @Test
    void versionsRaceToTheQuota() throws Exception {
        try (GlueClient glue = client("race-versions")) {
            glue.createRegistry(r -> r.registryName("r"));
            glue.createSchema(createSchema("s", definition(0)));
            IntStream.range(1, QUOTA - FREE).forEach(i -> glue.registerSchemaVersion(r -> r
                    .schemaId(id -> id.registryName("r").schemaName("s")).schemaDefinition(definition(i))));
            race(glue, "versions-per-schema", i -> glue.registerSchemaVersion(r -> r
                    .schemaId(id -> id.registryName("r").schemaName("s")).schemaDefinition(definition(QUOTA + i))));
            assertEquals(QUOTA, glue.getSchema(r -> r.schemaId(id -> id.registryName("r").schemaName("s")))
                    .latestSchemaVersion());
        }
    }

    @Test
    void registriesArePaged() throws Exception {
        try (GlueClient glue = client("pages-registries")) {
            IntStream.range(0, QUOTA).forEach(i -> glue.createRegistry(r -> r.registryName("r" + i)));

            ListRegistriesResponse first = glue.listRegistries(r -> { });
            assertEquals(PAGE, first.registries().size());
            assertNotNull(first.nextToken(), "a next page");
            assertEquals(List.of(PAGE, QUOTA - PAGE), glue.listRegistriesPaginator(r -> { }).stream()
                    .map(page -> page.registries().size()).toList());
            List<String> all = glue.listRegistriesPaginator(r -> { }).registries().stream()
                    .map(RegistryListItem::registryName).toList();
            assertEquals(IntStream.range(0, QUOTA).mapToObj(i -> "r" + i).sorted().toList(), all,
                    "every registry once, by name");
            assertEquals(all, glue.listRegistriesPaginator(r -> r.maxResults(7)).registries().stream()
                    .map(RegistryListItem::registryName).toList(), "the same rows in the same order, any page size");
            assertThrows(InvalidInputException.class, () -> glue.listRegistries(r -> r.maxResults(101)));
        }
    }

    @Test
    void schemasArePaged() throws Exception {
        try (GlueClient glue = client("pages-schemas")) {
            glue.createRegistry(r -> r.registryName("r"));
            IntStream.range(0, QUOTA).forEach(i -> glue.createSchema(createSchema("s" + i, definition(i))));
            List<String> names = IntStream.range(0, QUOTA).mapToObj(i -> "s" + i).sorted().toList();

            ListSchemasResponse first = glue.listSchemas(r -> r.registryId(id -> id.registryName("r")));
            assertEquals(PAGE, first.schemas().size());
            assertNotNull(first.nextToken(), "a next page");
            for (var pages : List.of(glue.listSchemasPaginator(r -> r.registryId(id -> id.registryName("r"))),
                    glue.listSchemasPaginator(r -> { }))) {
                assertEquals(List.of(PAGE, QUOTA - PAGE), pages.stream().map(page -> page.schemas().size()).toList());
                assertEquals(names, pages.schemas().stream().map(SchemaListItem::schemaName).toList(),
                        "every schema once, by name");
            }
            assertThrows(InvalidInputException.class, () -> glue.listSchemas(r -> r.maxResults(101)));
        }
    }

    @Test
    void versionsArePaged() throws Exception {
        try (GlueClient glue = client("pages-versions")) {
            glue.createRegistry(r -> r.registryName("r"));
            glue.createSchema(createSchema("s", definition(0)));
            IntStream.range(1, QUOTA).forEach(i -> glue.registerSchemaVersion(r -> r
                    .schemaId(id -> id.registryName("r").schemaName("s")).schemaDefinition(definition(i))));

            ListSchemaVersionsResponse first = glue.listSchemaVersions(r -> r.schemaId(id -> id.registryName("r")
                    .schemaName("s")));
            assertEquals(PAGE, first.schemas().size());
            assertNotNull(first.nextToken(), "a next page");
            var pages = glue.listSchemaVersionsPaginator(r -> r.schemaId(id -> id.registryName("r").schemaName("s")));
            assertEquals(List.of(PAGE, QUOTA - PAGE), pages.stream().map(page -> page.schemas().size()).toList());
            assertEquals(IntStream.rangeClosed(1, QUOTA).mapToObj(n -> (long) n).toList(), pages.schemas().stream()
                    .map(SchemaVersionListItem::versionNumber).toList(), "every version once, in order");
            SchemaVersionListItem v1 = pages.schemas().iterator().next();
            assertTrue(v1.schemaArn().startsWith("arn:aws:glue:" + TestGlue.REGION + ":"), v1.schemaArn());
            assertTrue(v1.schemaArn().endsWith(":schema/r/s"), v1.schemaArn());
            assertEquals("AVAILABLE", v1.statusAsString());
            assertEquals(glue.getSchemaVersion(r -> r.schemaId(id -> id.registryName("r").schemaName("s"))
                    .schemaVersionNumber(n -> n.versionNumber(1L))).schemaVersionId(), v1.schemaVersionId());
            assertThrows(InvalidInputException.class, () -> glue.listSchemaVersions(r -> r.schemaId(id -> id
                    .registryName("r").schemaName("s")).nextToken("not-a-token")));
        }
    }

    /**
     * {@link #THREADS} calls of {@code create}, released together once every thread has made a call: all but
     * {@link #FREE} refused naming the setting.
     */
    private static void race(GlueClient glue, String setting, IntConsumer create) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        try {
            CountDownLatch ready = new CountDownLatch(THREADS);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<String>> calls = new ArrayList<>();
            for (int i = 0; i < THREADS; i++) {
                int n = i;
                calls.add(threads.submit(() -> {
                    glue.listRegistries(r -> r.maxResults(1));
                    ready.countDown();
                    go.await();
                    try {
                        create.accept(n);
                        return null;
                    } catch (ResourceNumberLimitExceededException e) {
                        return e.awsErrorDetails().errorMessage();
                    }
                }));
            }
            ready.await();
            go.countDown();
            List<String> refused = new ArrayList<>();
            for (Future<String> call : calls) {
                String message = call.get(); // any other failure fails the test here
                if (message != null) {
                    refused.add(message);
                }
            }
            refused.forEach(m -> assertTrue(m.contains("delivery.quotas." + setting), m));
            assertEquals(THREADS - FREE, refused.size(), "refused creates, " + FREE + " short of the quota of " + QUOTA);
        } finally {
            threads.shutdownNow();
        }
    }

    private GlueClient client(String principal) throws Exception {
        return GlueClient.builder().endpointOverride(url.toURI()).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(key(principal),
                        principal + "-secret"))).httpClientBuilder(UrlConnectionHttpClient.builder()).build();
    }

    private static String key(String principal) {
        return principal.replace("-", "").toUpperCase();
    }

    private static CreateSchemaRequest createSchema(String name, String definition) {
        return CreateSchemaRequest.builder().registryId(id -> id.registryName("r")).schemaName(name)
                .dataFormat(DataFormat.JSON).schemaDefinition(definition).build();
    }

    private static String definition(int n) {
        return "{\"type\":\"object\",\"title\":\"t" + n + "\"}";
    }
}
