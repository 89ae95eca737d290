package io.streamtables.registry;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import io.quarkus.runtime.StartupEvent;
import io.streamtables.api.AwsApi;
import io.streamtables.api.AwsApiException;
import io.streamtables.auth.Caller;
import io.streamtables.channel.Arn;
import io.streamtables.config.DeliveryConfig;
import io.streamtables.config.QuotaConfig;
import io.streamtables.registry.SchemaRegistryStore.OverQuotaException;
import io.streamtables.registry.SchemaRegistryStore.Quotas;
import io.streamtables.registry.SchemaRegistryStore.Registered;
import io.streamtables.registry.SchemaRegistryStore.Registry;
import io.streamtables.registry.SchemaRegistryStore.Schema;
import io.streamtables.registry.SchemaRegistryStore.Version;
import io.streamtables.registry.SchemaRegistryStore.VersionItem;
import io.streamtables.schema.SchemaDialect;
import io.streamtables.schema.SchemaPatterns;
import io.streamtables.schema.UnsupportedSchemaException;
import io.streamtables.state.ServiceDatabase;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * The schema registry operations of the AWS Glue API ({@code X-Amz-Target: AWSGlue.<Operation>}), with the member
 * names of the Glue service model, so that the AWS SDKs and the Glue Schema Registry serializers can use it.
 * Data format JSON only. Also imports {@code <delivery.schemas-dir>/<REGISTRY>/<SCHEMA>.json} at start-up.
 */
@ApplicationScoped
public class GlueRegistryApi implements AwsApi {

    private static final Logger LOG = Logger.getLogger(GlueRegistryApi.class);

    /** Where a schema named without a registry lives, as in AWS. */
    static final String DEFAULT_REGISTRY = "default-registry";
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_$#.\\-]{1,255}");
    private static final String NAME_RULE = "1 to 255 letters, digits, '-', '_', '$', '#' or '.'";
    private static final Pattern VERSION_ID =
            Pattern.compile("[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}");
    private static final Set<String> COMPATIBILITIES = Set.of("NONE", "DISABLED", "BACKWARD", "BACKWARD_ALL",
            "FORWARD", "FORWARD_ALL", "FULL", "FULL_ALL");
    private static final int MAX_DESCRIPTION = 2048;
    private static final int MAX_DEFINITION = 170_000;
    private static final int MAX_VERSION_NUMBER = 100_000;
    /** Glue's page of the List operations when MaxResults is not given, and the most MaxResults may ask. */
    static final int DEFAULT_PAGE = 25;
    static final int MAX_PAGE = 100;
    private static final String AVAILABLE = "AVAILABLE";

    private final DeliveryConfig config;
    private final Quotas quotas;
    private final SchemaRegistryStore store;
    private final ObjectReader definitions;

    public GlueRegistryApi(DeliveryConfig config, QuotaConfig quotas, ServiceDatabase database, ObjectMapper json) {
        this.config = config;
        this.quotas = Quotas.of(quotas);
        this.store = new SchemaRegistryStore(database);
        // strict: a definition with trailing text or a repeated key is refused rather than silently cut or merged
        this.definitions = json.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .with(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    }

    @Override
    public String targetPrefix() {
        return "AWSGlue";
    }

    @Override
    public String signingName() {
        return "glue";
    }

    @Override
    public Object handle(String operation, JsonNode request, Caller caller) {
        return switch (operation) {
            case "CreateRegistry" -> createRegistry(request, caller);
            case "GetRegistry" -> getRegistry(request, caller);
            case "ListRegistries" -> listRegistries(request, caller);
            case "CreateSchema" -> createSchema(request, caller);
            case "GetSchema" -> getSchema(request, caller);
            case "ListSchemas" -> listSchemas(request, caller);
            case "ListSchemaVersions" -> listSchemaVersions(request, caller);
            case "RegisterSchemaVersion" -> registerSchemaVersion(request, caller);
            case "GetSchemaVersion" -> getSchemaVersion(request, caller);
            case "GetSchemaByDefinition" -> getSchemaByDefinition(request, caller);
            case "DeleteSchema" -> deleteSchema(request, caller);
            default -> throw new AwsApiException("UnknownOperationException", 400, "AWSGlue." + operation
                    + " is not served here: this registry serves CreateRegistry, GetRegistry, ListRegistries, "
                    + "CreateSchema, GetSchema, ListSchemas, ListSchemaVersions, RegisterSchemaVersion, "
                    + "GetSchemaVersion, GetSchemaByDefinition and DeleteSchema");
        };
    }

    // ---- operations

    private Object createRegistry(JsonNode request, Caller caller) {
        String name = name(request, "RegistryName", true);
        String description = description(request);
        Map<String, String> tags = tags(request);
        if (!withinQuota(() -> store.createRegistry(caller.accountId(), name, description, now(), quotas))) {
            throw error("AlreadyExistsException", "Registry " + name + " already exists");
        }
        return body("RegistryArn", registryArn(new RegistryRef(caller.accountId(), name)), "RegistryName", name,
                "Description", description, "Tags", tags);
    }

    private Object getRegistry(JsonNode request, Caller caller) {
        return registryItem(existingRegistry(registryId(request, caller, Access.READ)));
    }

    private Object listRegistries(JsonNode request, Caller caller) {
        Page page = page(request);
        String[] after = page.after(1);
        return page.answer("Registries", store.registries(caller.accountId(), after[0], page.size() + 1),
                Registry::name, this::registryItem);
    }

    private Object createSchema(JsonNode request, Caller caller) {
        boolean registryGiven = present(request.get("RegistryId"));
        RegistryRef registry = registryGiven ? registryId(request, caller, Access.WRITE)
                : new RegistryRef(caller.accountId(), DEFAULT_REGISTRY);
        String name = name(request, "SchemaName", true);
        String dataFormat = dataFormat(request);
        String given = text(request, "Compatibility");
        if (given != null && !COMPATIBILITIES.contains(given)) {
            throw invalid("Compatibility must be one of " + String.join(", ", COMPATIBILITIES.stream().sorted().toList()));
        }
        String compatibility = given == null ? "BACKWARD" : given; // the AWS default
        String description = description(request);
        Map<String, String> tags = tags(request);
        Definition definition = definition(text(request, "SchemaDefinition"));
        Instant now = now();
        if (registryGiven) {
            existingRegistry(registry);
        } else { // AWS creates the default registry on first use
            withinQuota(() -> store.createRegistry(registry.account(), DEFAULT_REGISTRY, null, now, quotas));
        }
        SchemaRef ref = new SchemaRef(registry.account(), registry.name(), name);
        Version first = withinQuota(() -> store.createSchema(ref.account(), ref.registry(), name, dataFormat,
                compatibility, description, definition.text(), definition.tree(), now, quotas))
                .orElseThrow(() -> error("AlreadyExistsException",
                        "Schema " + name + " already exists in registry " + registry.name()));
        return body("RegistryName", registry.name(), "RegistryArn", registryArn(registry), "SchemaName", name,
                "SchemaArn", schemaArn(ref), "Description", description, "DataFormat", dataFormat,
                "Compatibility", compatibility, "SchemaCheckpoint", 1L, "LatestSchemaVersion", 1L,
                "NextSchemaVersion", 2L, "SchemaStatus", AVAILABLE, "Tags", tags,
                "SchemaVersionId", first.id(), "SchemaVersionStatus", AVAILABLE);
    }

    private Object getSchema(JsonNode request, Caller caller) {
        Schema s = existingSchema(schemaId(request, caller, Access.READ));
        return body("RegistryName", s.registry(), "RegistryArn", registryArn(new RegistryRef(s.account(), s.registry())),
                "SchemaName", s.name(), "SchemaArn", schemaArn(SchemaRef.of(s)), "Description", s.description(),
                "DataFormat", s.dataFormat(), "Compatibility", s.compatibility(), "SchemaCheckpoint", 1L,
                "LatestSchemaVersion", s.latestVersion(), "NextSchemaVersion", s.latestVersion() + 1,
                "SchemaStatus", AVAILABLE, "CreatedTime", time(s.created()), "UpdatedTime", time(s.updated()));
    }

    private Object listSchemas(JsonNode request, Caller caller) {
        Page page = page(request);
        String account = caller.accountId();
        String registry = null;
        if (present(request.get("RegistryId"))) {
            Registry r = existingRegistry(registryId(request, caller, Access.READ));
            account = r.account();
            registry = r.name();
        }
        String[] after = page.after(2);
        List<Schema> schemas = store.schemas(account, registry, after[0], after[1], page.size() + 1);
        return page.answer("Schemas", schemas, s -> s.registry() + "/" + s.name(), s -> body(
                "RegistryName", s.registry(), "SchemaName", s.name(), "SchemaArn", schemaArn(SchemaRef.of(s)), "Description", s.description(),
                "SchemaStatus", AVAILABLE, "CreatedTime", time(s.created()), "UpdatedTime", time(s.updated())));
    }

    private Object listSchemaVersions(JsonNode request, Caller caller) {
        SchemaRef ref = schemaId(request, caller, Access.READ);
        Page page = page(request);
        existingSchema(ref);
        String after = page.after(1)[0];
        if (after != null && !after.matches("[1-9][0-9]{0,8}")) {
            throw Page.badToken();
        }
        List<VersionItem> versions = store.versions(ref.account(), ref.registry(), ref.schema(),
                after == null ? 0 : Long.parseLong(after), page.size() + 1);
        return page.answer("Schemas", versions, v -> Long.toString(v.number()), v -> body("SchemaArn", schemaArn(ref),
                "SchemaVersionId", v.id(), "VersionNumber", v.number(), "Status", AVAILABLE,
                "CreatedTime", time(v.created())));
    }

    private Object registerSchemaVersion(JsonNode request, Caller caller) {
        SchemaRef ref = schemaId(request, caller, Access.WRITE);
        Definition definition = definition(text(request, "SchemaDefinition"));
        Schema schema = existingSchema(ref);
        if ("DISABLED".equals(schema.compatibility()) && store.versionByDefinition(ref.account(), ref.registry(),
                ref.schema(), definition.tree()).isEmpty()) {
            throw invalid("Schema " + ref + " has Compatibility DISABLED, which allows no new versions");
        }
        Registered registered = withinQuota(() -> store.registerVersion(ref.account(), ref.registry(), ref.schema(),
                definition.text(), definition.tree(), now(), quotas)).orElseThrow(() -> schemaNotFound(ref));
        return body("SchemaVersionId", registered.version().id(), "VersionNumber", registered.version().number(),
                "Status", AVAILABLE);
    }

    private Object getSchemaVersion(JsonNode request, Caller caller) {
        String versionId = text(request, "SchemaVersionId");
        JsonNode number = request.get("SchemaVersionNumber");
        boolean bySchema = present(request.get("SchemaId"));
        Version version;
        if (versionId != null) {
            if (bySchema || present(number)) {
                throw invalid("Give SchemaVersionId, or SchemaId with SchemaVersionNumber, not both");
            }
            if (!VERSION_ID.matcher(versionId).matches()) {
                throw invalid("SchemaVersionId must be a lower-case UUID of 36 characters");
            }
            // another account's version is not found: whether it exists is not the caller's business
            version = store.version(versionId).filter(v -> caller.mayRead(v.account()))
                    .orElseThrow(() -> error("EntityNotFoundException", "Schema version " + versionId + " does not exist"));
        } else {
            if (!bySchema) {
                throw invalid("Give SchemaVersionId, or SchemaId with SchemaVersionNumber");
            }
            SchemaRef ref = schemaId(request, caller, Access.READ);
            long n = versionNumber(number, existingSchema(ref));
            version = store.version(ref.account(), ref.registry(), ref.schema(), n).orElseThrow(() -> error(
                    "EntityNotFoundException", "Schema " + ref + " has no version " + n));
        }
        SchemaRef ref = new SchemaRef(version.account(), version.registry(), version.schema());
        Schema schema = existingSchema(ref);
        return body("SchemaVersionId", version.id(), "SchemaDefinition", version.definition(),
                "DataFormat", schema.dataFormat(), "SchemaArn", schemaArn(ref),
                "VersionNumber", version.number(), "Status", AVAILABLE, "CreatedTime", time(version.created()));
    }

    private Object getSchemaByDefinition(JsonNode request, Caller caller) {
        SchemaRef ref = schemaId(request, caller, Access.READ);
        Definition definition = definition(text(request, "SchemaDefinition"));
        Schema schema = existingSchema(ref);
        Version version = store.versionByDefinition(ref.account(), ref.registry(), ref.schema(), definition.tree())
                .orElseThrow(() -> error("EntityNotFoundException",
                        "Schema " + ref + " has no version with this SchemaDefinition"));
        return body("SchemaVersionId", version.id(), "SchemaArn", schemaArn(ref),
                "DataFormat", schema.dataFormat(), "Status", AVAILABLE, "CreatedTime", time(version.created()));
    }

    private Object deleteSchema(JsonNode request, Caller caller) {
        SchemaRef ref = schemaId(request, caller, Access.WRITE);
        if (!store.deleteSchema(ref.account(), ref.registry(), ref.schema())) {
            throw schemaNotFound(ref);
        }
        // AWS answers DELETING and removes the schema asynchronously; here it is already gone
        return body("SchemaArn", schemaArn(ref), "SchemaName", ref.schema(),
                "Status", "DELETING");
    }

    // ---- declarative bootstrap

    /** Before the default-priority start-up observers, so that the stages find the imported schemas. */
    void onStart(@Observes @Priority(Interceptor.Priority.LIBRARY_BEFORE) StartupEvent event) {
        importSchemaFiles(Path.of(config.schemasDir()));
    }

    /**
     * Imports every {@code <dir>/<REGISTRY>/<SCHEMA>.json} as a JSON schema: created when missing, otherwise
     * registered as a version (a definition equal to an existing version adds none). A file that is not a valid
     * schema stops the start, like a channel that breaks a rule.
     */
    void importSchemaFiles(Path dir) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> registries = Files.list(dir)) {
            for (Path registryDir : registries.filter(Files::isDirectory).sorted().toList()) {
                try (Stream<Path> files = Files.list(registryDir)) {
                    for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".json"))
                            .filter(Files::isRegularFile).sorted().toList()) {
                        String fileName = file.getFileName().toString();
                        importSchemaFile(registryDir.getFileName().toString(),
                                fileName.substring(0, fileName.length() - ".json".length()), file);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the schema folder " + dir + " (delivery.schemas-dir)", e);
        }
    }

    private void importSchemaFile(String registry, String name, Path file) throws IOException {
        Definition definition;
        try {
            checkName("the registry folder name", registry);
            checkName("the schema file name (without .json)", name);
            definition = definition(Files.readString(file));
        } catch (AwsApiException e) {
            throw new IllegalStateException("Cannot import the schema file " + file + ": " + e.getMessage());
        }
        String account = config.accountId(); // the operator's files, the operator's account
        SchemaRef ref = new SchemaRef(account, registry, name);
        Instant now = now();
        // the operator's files in the operator's account: not refused by the quotas, which bound the callers
        store.createRegistry(account, registry, null, now, Quotas.NONE);
        // NONE: the file is the source of truth, so its changes are taken as they come
        if (store.createSchema(account, registry, name, "JSON", "NONE", null, definition.text(), definition.tree(),
                now, Quotas.NONE).isPresent()) {
            LOG.infof("Imported %s as schema %s version 1", file, schemaArn(ref));
            return;
        }
        Registered registered = store.registerVersion(account, registry, name, definition.text(), definition.tree(),
                now, Quotas.NONE).orElseThrow(() -> new IllegalStateException("Schema " + ref + " was deleted while "
                        + file + " was imported"));
        long latest = store.schema(account, registry, name).map(Schema::latestVersion)
                .orElse(registered.version().number());
        if (registered.created()) {
            LOG.infof("Imported %s as version %d of schema %s", file, registered.version().number(), ref);
        } else if (registered.version().number() != latest) {
            // as in AWS, an equal definition is never added twice, so the file stays an older version
            LOG.warnf("%s equals version %d of schema %s, not its latest version %d", file,
                    registered.version().number(), ref, latest);
        }
    }

    // ---- request members

    /** What a request may do to the account an ARN names: read it, or change it (only the caller's own). */
    private enum Access { READ, WRITE }

    private record RegistryRef(String account, String name) {
    }

    private record SchemaRef(String account, String registry, String schema) {
        static SchemaRef of(Schema s) {
            return new SchemaRef(s.account(), s.registry(), s.name());
        }

        @Override
        public String toString() {
            return registry + "/" + schema;
        }
    }

    private record Definition(String text, JsonNode tree) {
    }

    /** {@code RegistryId}: {@code RegistryName} (in the caller's account) or {@code RegistryArn}. */
    private RegistryRef registryId(JsonNode request, Caller caller, Access access) {
        JsonNode id = request.get("RegistryId");
        if (!present(id)) {
            throw invalid("RegistryId is required: give RegistryId.RegistryName or RegistryId.RegistryArn");
        }
        String name = text(id, "RegistryId.RegistryName", "RegistryName");
        String arn = text(id, "RegistryId.RegistryArn", "RegistryArn");
        if ((name == null) == (arn == null)) {
            throw invalid("RegistryId must have exactly one of RegistryName and RegistryArn");
        }
        if (arn == null) {
            return new RegistryRef(caller.accountId(), checkName("RegistryId.RegistryName", name));
        }
        String[] names = arnNames("RegistryId.RegistryArn", arn, "registry", 1);
        return new RegistryRef(arnAccount("RegistryId.RegistryArn", arn, caller, access), names[0]);
    }

    /**
     * {@code SchemaId}: {@code SchemaArn}, or {@code SchemaName} with {@code RegistryName} (default-registry if
     * absent) in the caller's account.
     */
    private SchemaRef schemaId(JsonNode request, Caller caller, Access access) {
        JsonNode id = request.get("SchemaId");
        if (!present(id)) {
            throw invalid("SchemaId is required: give SchemaId.SchemaArn, or SchemaId.SchemaName and SchemaId.RegistryName");
        }
        String arn = text(id, "SchemaId.SchemaArn", "SchemaArn");
        String name = text(id, "SchemaId.SchemaName", "SchemaName");
        String registry = text(id, "SchemaId.RegistryName", "RegistryName");
        if (arn != null) {
            if (name != null || registry != null) {
                throw invalid("SchemaId must have SchemaArn, or SchemaName and RegistryName, not both");
            }
            String[] names = arnNames("SchemaId.SchemaArn", arn, "schema", 2);
            return new SchemaRef(arnAccount("SchemaId.SchemaArn", arn, caller, access), names[0], names[1]);
        }
        if (name == null) {
            throw invalid("SchemaId must have SchemaArn, or SchemaName and RegistryName");
        }
        return new SchemaRef(caller.accountId(),
                registry == null ? DEFAULT_REGISTRY : checkName("SchemaId.RegistryName", registry),
                checkName("SchemaId.SchemaName", name));
    }

    /** The account of a well-formed ARN, once the caller may {@code access} it (else: not found, as AWS answers). */
    private static String arnAccount(String field, String arn, Caller caller, Access access) {
        String account = Arn.accountOf(arn);
        if (access == Access.READ ? !caller.mayRead(account) : !caller.owns(account)) {
            throw error("EntityNotFoundException", field + " " + arn + " is not in account " + caller.accountId()
                    + ", the one the caller's keys act for: a caller sees and changes only its own account's "
                    + "registries and schemas");
        }
        return account;
    }

    /** The names in {@code arn:aws:glue:REGION:ACCOUNT:<kind>/NAME[/NAME]}, which must be in our region. */
    private String[] arnNames(String field, String arn, String kind, int count) {
        String shape = "arn:aws:glue:REGION:ACCOUNT:" + (count == 1 ? "registry/REGISTRY" : "schema/REGISTRY/SCHEMA");
        String[] parts = arn.split(":", 6);
        if (parts.length != 6 || !parts[0].equals("arn") || !parts[1].startsWith("aws") || !parts[2].equals("glue")
                || !parts[5].startsWith(kind + "/")) {
            throw invalid(field + " must be " + shape);
        }
        String[] names = parts[5].substring(kind.length() + 1).split("/", -1);
        if (names.length != count) {
            throw invalid(field + " must be " + shape);
        }
        for (String name : names) {
            checkName(field, name);
        }
        if (!parts[4].matches("\\d{12}")) {
            throw invalid(field + " must be " + shape + " with a 12-digit ACCOUNT");
        }
        if (!parts[3].equals(config.region())) {
            throw error("EntityNotFoundException", field + " " + arn + " is in region " + parts[3]
                    + "; this registry serves region " + config.region());
        }
        return names;
    }

    private long versionNumber(JsonNode number, Schema schema) {
        if (!present(number) || !number.isObject()) {
            throw invalid("SchemaVersionNumber is required with SchemaId: {\"LatestVersion\": true} or {\"VersionNumber\": n}");
        }
        JsonNode latest = number.get("LatestVersion");
        JsonNode n = number.get("VersionNumber");
        if (present(latest) && !latest.isBoolean()) {
            throw invalid("SchemaVersionNumber.LatestVersion must be a boolean");
        }
        boolean wantsLatest = present(latest) && latest.booleanValue();
        if (wantsLatest == present(n)) {
            throw invalid("SchemaVersionNumber must have LatestVersion true or a VersionNumber, not both");
        }
        if (wantsLatest) {
            return schema.latestVersion();
        }
        if (!n.canConvertToLong() || !n.isIntegralNumber() || n.longValue() < 1 || n.longValue() > MAX_VERSION_NUMBER) {
            throw invalid("SchemaVersionNumber.VersionNumber must be an integer from 1 to " + MAX_VERSION_NUMBER);
        }
        return n.longValue();
    }

    private static String dataFormat(JsonNode request) {
        String format = text(request, "DataFormat");
        if (format == null) {
            throw invalid("DataFormat is required: JSON");
        }
        if (format.equals("AVRO") || format.equals("PROTOBUF")) {
            throw invalid("DataFormat " + format + " is not supported: this registry supports only JSON");
        }
        if (!format.equals("JSON")) {
            throw invalid("DataFormat must be one of AVRO, JSON, PROTOBUF; this registry supports only JSON");
        }
        return format;
    }

    private Definition definition(String text) {
        if (text == null) {
            throw invalid("SchemaDefinition is required");
        }
        if (text.length() > MAX_DEFINITION) {
            throw invalid("SchemaDefinition must be at most " + MAX_DEFINITION + " characters");
        }
        JsonNode tree;
        try {
            tree = definitions.readTree(text);
        } catch (JsonProcessingException e) {
            throw invalid("SchemaDefinition must be valid JSON (data format JSON): " + e.getOriginalMessage());
        }
        if (tree == null || !tree.isObject()) {
            throw invalid("SchemaDefinition must be a JSON object (a JSON Schema)");
        }
        try {
            SchemaDialect.of(tree);
            SchemaPatterns.check(tree);
        } catch (UnsupportedSchemaException e) {
            throw invalid("SchemaDefinition " + e.getMessage());
        }
        return new Definition(text, tree);
    }

    private static String name(JsonNode request, String field, boolean required) {
        String value = text(request, field);
        if (value == null) {
            if (required) {
                throw invalid(field + " is required");
            }
            return null;
        }
        return checkName(field, value);
    }

    private static String checkName(String field, String value) {
        if (!NAME.matcher(value).matches()) {
            throw invalid(field + " must be " + NAME_RULE + " (got '" + value + "')");
        }
        return value;
    }

    private static String description(JsonNode request) {
        String description = text(request, "Description");
        if (description != null && description.length() > MAX_DESCRIPTION) {
            throw invalid("Description must be at most " + MAX_DESCRIPTION + " characters");
        }
        return description;
    }

    /** Checked and echoed in the create responses, as AWS does; not stored (no tag operations here). */
    private static Map<String, String> tags(JsonNode request) {
        JsonNode tags = request.get("Tags");
        if (!present(tags)) {
            return null;
        }
        if (!tags.isObject() || tags.size() > 50) {
            throw invalid("Tags must be a map of at most 50 string keys to string values");
        }
        Map<String, String> result = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> tag : tags.properties()) {
            if (!tag.getValue().isTextual()) {
                throw invalid("Tags must be a map of at most 50 string keys to string values");
            }
            if (tag.getKey().isEmpty() || tag.getKey().length() > 128 || tag.getValue().textValue().length() > 256) {
                throw invalid("Tags: a key must be 1-128 characters and a value at most 256");
            }
            result.put(tag.getKey(), tag.getValue().textValue());
        }
        return result;
    }

    private static String text(JsonNode parent, String field) {
        return text(parent, field, field);
    }

    private static String text(JsonNode parent, String path, String field) {
        JsonNode value = parent.get(field);
        if (!present(value)) {
            return null;
        }
        if (!value.isTextual()) {
            throw invalid(path + " must be a string");
        }
        return value.textValue();
    }

    private static boolean present(JsonNode node) {
        return node != null && !node.isNull() && !node.isMissingNode();
    }

    // ---- responses

    private static Page page(JsonNode request) {
        JsonNode max = request.get("MaxResults");
        if (present(max) && (!max.isIntegralNumber() || max.longValue() < 1 || max.longValue() > MAX_PAGE)) {
            throw invalid("MaxResults must be an integer from 1 to " + MAX_PAGE);
        }
        return new Page(present(max) ? max.intValue() : DEFAULT_PAGE, text(request, "NextToken"));
    }

    /**
     * A page of a List operation: {@code size} rows (MaxResults, else Glue's 25), after the row a NextToken names.
     * A NextToken is the key of the last row of the page before (base64url of its names or number), so a page is
     * one indexed read of at most {@code size + 1} rows, and a row created or deleted meanwhile moves no other:
     * none is skipped or answered twice, on whichever control plane the next page is asked.
     */
    private record Page(int size, String token) {

        /** The key's {@code parts} names; nulls on the first page. */
        String[] after(int parts) {
            if (token == null) {
                return new String[parts];
            }
            String key;
            try {
                key = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(Base64.getUrlDecoder().decode(token)))
                        .toString();
            } catch (IllegalArgumentException | CharacterCodingException e) {
                throw badToken();
            }
            String[] names = key.split("/", -1);
            if (names.length != parts || !Stream.of(names).allMatch(n -> NAME.matcher(n).matches())) {
                throw badToken();
            }
            return names;
        }

        /** The first {@code size} of {@code rows} (read with one more, which says whether a next page exists). */
        <T> Map<String, Object> answer(String member, List<T> rows, Function<T, String> key, Function<T, Object> item) {
            List<T> shown = rows.subList(0, Math.min(size, rows.size()));
            String next = rows.size() > size ? Base64.getUrlEncoder().withoutPadding().encodeToString(
                    key.apply(shown.get(size - 1)).getBytes(StandardCharsets.UTF_8)) : null;
            return body(member, shown.stream().map(item).toList(), "NextToken", next);
        }

        static AwsApiException badToken() {
            return invalid("NextToken must be a NextToken of a previous answer");
        }
    }

    private Map<String, Object> registryItem(Registry r) {
        return body("RegistryName", r.name(), "RegistryArn", registryArn(new RegistryRef(r.account(), r.name())),
                "Description", r.description(),
                "Status", AVAILABLE, "CreatedTime", time(r.created()), "UpdatedTime", time(r.updated()));
    }

    /** The members in order, without the absent ones (the SDKs treat null and absent alike, but AWS omits them). */
    private static Map<String, Object> body(Object... membersAndValues) {
        Map<String, Object> body = new LinkedHashMap<>();
        for (int i = 0; i < membersAndValues.length; i += 2) {
            if (membersAndValues[i + 1] != null) {
                body.put((String) membersAndValues[i], membersAndValues[i + 1]);
            }
        }
        return body;
    }

    /** The Glue model types CreatedTime and UpdatedTime as strings (not timestamps): ISO-8601, as AWS sends them. */
    private static String time(Instant instant) {
        return instant.toString();
    }

    private static Instant now() {
        return Instant.now().truncatedTo(ChronoUnit.MILLIS);
    }

    private String registryArn(RegistryRef registry) {
        return "arn:aws:glue:" + config.region() + ":" + registry.account() + ":registry/" + registry.name();
    }

    private String schemaArn(SchemaRef ref) {
        return "arn:aws:glue:" + config.region() + ":" + ref.account() + ":schema/" + ref.registry() + "/" + ref.schema();
    }

    private Registry existingRegistry(RegistryRef ref) {
        return store.registry(ref.account(), ref.name()).orElseThrow(() -> error("EntityNotFoundException",
                "Registry " + ref.name() + " does not exist"));
    }

    private Schema existingSchema(SchemaRef ref) {
        return store.schema(ref.account(), ref.registry(), ref.schema()).orElseThrow(() -> schemaNotFound(ref));
    }

    private static AwsApiException schemaNotFound(SchemaRef ref) {
        return error("EntityNotFoundException", "Schema " + ref.schema() + " does not exist in registry " + ref.registry());
    }

    /** The store's answer, or its quota refusal as Glue's error. */
    private static <T> T withinQuota(Supplier<T> write) {
        try {
            return write.get();
        } catch (OverQuotaException e) {
            throw error("ResourceNumberLimitExceededException", e.getMessage());
        }
    }

    private static AwsApiException invalid(String message) {
        return error("InvalidInputException", message);
    }

    private static AwsApiException error(String type, String message) {
        return AwsApiException.badRequest(type, message);
    }
}
