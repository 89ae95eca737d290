package io.streamtables.commit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.catalog.Catalogs;
import io.streamtables.catalog.DeliveryTables;
import io.streamtables.catalog.S3TablesStub;
import io.streamtables.channel.Channel;
import io.streamtables.config.EncryptionConfig;
import io.streamtables.config.TestDeliveryConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;

/**
 * A channel with a KMS key of its own on an S3 Tables bucket has its table created through S3 Tables' CreateTable
 * with the key (the AWS SDK's own S3 Tables client against a stub of the control API, which creates what it is asked
 * for in a real catalog, as S3 Tables does), then given the rest of its schema and its partition spec.
 */
class S3TablesCreationTest {

    private static final String KEY = "arn:aws:kms:us-east-1:000000000000:key/1234abcd-12ab-34cd-56ef-1234567890ab";
    private static final String ACCESS_KEY = "AKIDS3TABLESTEST";
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Nested columns too, which CreateTable cannot take: Iceberg adds them. */
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "customer", Types.StructType.of(
                    Types.NestedField.optional(5, "name", Types.StringType.get()),
                    Types.NestedField.optional(6, "tags", Types.ListType.ofOptional(7, Types.StringType.get())))),
            Types.NestedField.required(3, "ts", Types.TimestampType.withZone()),
            Types.NestedField.optional(4, "amount", Types.DecimalType.of(10, 2)));

    @TempDir
    Path dir;

    private Catalog catalog;
    private S3TablesStub stub;
    private Catalogs catalogs;
    private S3TablesCreation creation;

    @BeforeEach
    void setUp() throws IOException {
        catalog = CommitFixture.catalog(dir);
        stub = new S3TablesStub(catalog);
        catalogs = new Catalogs(TestDeliveryConfig.withTableBuckets("000000000000", Map.of("tables", Map.of(
                "type", "s3tables",
                "s3tables.endpoint", stub.uri(),
                "rest.access-key-id", ACCESS_KEY,
                "rest.secret-access-key", "secret-of-the-test"))), sseHeaders(), null);
        creation = new S3TablesCreation(catalogs, channel -> null);
    }

    @AfterEach
    void tearDown() throws Exception {
        creation.close();
        stub.close();
        if (catalog instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }

    @Test
    void aKeyedChannelsTableIsCreatedThroughS3TablesWithItsKeyThenPartitioned() throws Exception {
        Channel channel = CommitFixture.keyed("keyed-channel", "orders", KEY);
        UUID version = UUID.randomUUID();
        Table table = TableOpener.open(catalog, false, channel, SCHEMA, version, creation.forChannel(channel));

        assertEquals(1, stub.requests.size(), "one CreateTable: " + stub.requests);
        S3TablesStub.Request create = stub.requests.get(0);
        assertEquals("PUT /tables/arn:aws:s3tables:us-east-1:000000000000:bucket/tables/sales", create.line());
        assertTrue(create.authorization().matches("AWS4-HMAC-SHA256 Credential=" + ACCESS_KEY
                + "/\\d{8}/us-east-1/s3tables/aws4_request, SignedHeaders=[a-z0-9;-]*, Signature=[0-9a-f]{64}"),
                create.authorization());
        JsonNode body = create.body();
        assertEquals("orders", body.path("name").asText());
        assertEquals("ICEBERG", body.path("format").asText());
        assertEquals("aws:kms", body.path("encryptionConfiguration").path("sseAlgorithm").asText());
        assertEquals(KEY, body.path("encryptionConfiguration").path("kmsKeyArn").asText());
        assertEquals(JSON.readTree("""
                [{"name": "id", "type": "long", "required": true},
                 {"name": "ts", "type": "timestamptz", "required": true},
                 {"name": "amount", "type": "decimal(10, 2)", "required": false}]"""),
                body.path("metadata").path("iceberg").path("schema").path("fields"));
        JsonNode properties = body.path("metadata").path("iceberg").path("properties");
        assertEquals(channel.arn(), properties.path("delivery.channel-arn").asText());
        assertEquals("zstd", properties.path("write.parquet.compression-codec").asText());
        assertEquals("pending", properties.path(TableOpener.SETUP_PROPERTY).asText());

        // then the rest through Iceberg, in one commit: every column in the schema's order, the partition spec
        assertEquals(fresh(SCHEMA), fresh(table.schema()), "the table's columns are the channel's");
        assertEquals(List.of("ts_hour"), table.spec().fields().stream().map(f -> f.name()).toList());
        assertEquals("hour", table.spec().fields().get(0).transform().toString());
        assertEquals(table.schema().findField("ts").fieldId(), table.spec().fields().get(0).sourceId());
        assertNull(table.properties().get(TableOpener.SETUP_PROPERTY), "set up");
        assertEquals(version.toString(), table.properties().get(DeliveryTables.SCHEMA_VERSION_PROPERTY));
        assertTrue(DeliveryTables.owned(table, channel.arn()));
        assertEquals(1, ((BaseTable) table).operations().current().previousFiles().size(),
                "created, then set up in one commit");

        assertEquals(table.uuid(), TableOpener.open(catalog, false, channel, SCHEMA, version,
                creation.forChannel(channel)).uuid(), "opened again, not created");
        assertEquals(1, stub.requests.size());
    }

    /** An instance that stopped between CreateTable and the setup: the next one to open the table finishes it. */
    @Test
    void aTableLeftPendingIsSetUpByTheNextOpen() {
        Channel channel = CommitFixture.keyed("keyed-channel", "orders", KEY);
        Map<String, String> pending = new HashMap<>(TableOpener.properties(channel));
        pending.put(TableOpener.SETUP_PROPERTY, TableOpener.PENDING);
        createNamespace();
        creation.create(channel, SCHEMA, pending);
        Table created = catalog.loadTable(channel.table());
        assertTrue(created.spec().isUnpartitioned());
        assertEquals(List.of("id", "ts", "amount"), created.schema().columns().stream().map(c -> c.name()).toList());

        Table table = TableOpener.open(catalog, false, channel, SCHEMA, null);
        assertEquals(fresh(SCHEMA), fresh(table.schema()));
        assertFalse(table.spec().isUnpartitioned());
        assertNull(table.properties().get(TableOpener.SETUP_PROPERTY));
    }

    /** AccessDenied (the role may not call s3tables:PutTableEncryption, or use the key): refused for good, no table. */
    @Test
    void anAccessDeniedRefusesTheTable() {
        Channel channel = CommitFixture.keyed("keyed-channel", "orders", KEY);
        stub.refuse = "User: arn:aws:sts::000000000000:assumed-role/delivery/delivery-keyed-channel is not authorized "
                + "to perform: s3tables:PutTableEncryption";
        TableOpener.TableRefusedException e = assertThrows(TableOpener.TableRefusedException.class,
                () -> TableOpener.open(catalog, false, channel, SCHEMA, null, creation.forChannel(channel)));
        assertTrue(e.getMessage().contains(stub.refuse), e::getMessage);
        assertEquals(1, stub.requests.size(), "asked once, not retried");
        assertFalse(catalog.tableExists(channel.table()));
        String reason = TableRefusals.reason(channel, true, "the S3 Tables endpoint", e);
        assertTrue(reason.contains("s3tables:PutTableEncryption") && reason.contains(KEY), reason);
    }

    /** With roles on, CreateTable is signed as the channel's role (its session), not with the bucket's keys. */
    @Test
    void withRolesOnTheCallIsTheChannelsRoles() {
        Channel channel = CommitFixture.keyed("keyed-channel", "orders", KEY);
        S3TablesCreation asRole = new S3TablesCreation(catalogs, c -> AwsRequestOverrideConfiguration.builder()
                .credentialsProvider(StaticCredentialsProvider.create(AwsSessionCredentials.create("ASIAROLESESSION",
                        "role-secret", "session-token-of-" + c.name()))).build());
        try {
            TableOpener.open(catalog, false, channel, SCHEMA, null, asRole.forChannel(channel));
        } finally {
            asRole.close();
        }
        S3TablesStub.Request create = stub.requests.get(0);
        assertTrue(create.authorization().startsWith("AWS4-HMAC-SHA256 Credential=ASIAROLESESSION/"),
                create.authorization());
        assertTrue(catalog.tableExists(channel.table()));
    }

    /** Without a key of its own, or on another catalog, the catalog creates the table as before. */
    @Test
    void otherChannelsTablesAreCreatedByTheirCatalog() throws IOException {
        assertNull(creation.forChannel(CommitFixture.channel("plain", "orders")));
        Catalogs jdbcOnly = new Catalogs(TestDeliveryConfig.withTableBuckets("000000000000", Map.of("tables",
                Map.of("type", "jdbc", "uri", "jdbc:sqlite:" + dir + "/other.db"))), sseHeaders(), null);
        assertNull(new S3TablesCreation(jdbcOnly, channel -> null)
                .forChannel(CommitFixture.keyed("keyed-channel", "orders", KEY)));
        assertNotNull(creation.forChannel(CommitFixture.keyed("keyed-channel", "orders", KEY)));
    }

    private void createNamespace() {
        ((SupportsNamespaces) catalog).createNamespace(Namespace.of("sales"));
    }

    /** The schema with ids given afresh: columns compared by name, type, order and nullability. */
    private static Types.StructType fresh(Schema schema) {
        AtomicInteger ids = new AtomicInteger();
        return TypeUtil.assignFreshIds(schema, ids::incrementAndGet).asStruct();
    }

    private static EncryptionConfig sseHeaders() {
        return new EncryptionConfig() {
            public boolean sseHeaders() {
                return true;
            }

            public String deadLetters() {
                return "SSE_S3";
            }
        };
    }
}
