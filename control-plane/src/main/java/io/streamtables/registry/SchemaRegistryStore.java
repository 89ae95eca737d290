package io.streamtables.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamtables.config.QuotaConfig;
import io.streamtables.state.ServiceDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Registries, schemas and schema versions in the service database ({@code delivery.database-url}, SQLite or
 * PostgreSQL), with plain JDBC, each in the account that owns it. Knows accounts and names only: ARNs, callers and
 * the AWS wire shapes belong to {@link GlueRegistryApi}.
 *
 * <p>The home of the quotas: every write of an account takes the account's row first ({@link #lockAccount}), then
 * counts and inserts in that one transaction, so no interleaving of creates, in one process or in control planes
 * sharing a database, passes a quota. Reads take no lock and read a bounded page.
 */
public class SchemaRegistryStore {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    public record Registry(String account, String name, String description, Instant created, Instant updated) {
    }

    public record Schema(String account, String registry, String name, String dataFormat, String compatibility, String description,
            long latestVersion, Instant created, Instant updated) {
    }

    public record Version(String id, String account, String registry, String schema, long number, String definition,
            Instant created) {
    }

    /** A version as a list shows it, without its definition (a page of them could hold 100 of 170 000 characters). */
    public record VersionItem(String id, long number, Instant created) {
    }

    /** The outcome of registering a definition: {@code created} is false when an equal version already existed. */
    public record Registered(Version version, boolean created) {
    }

    /** What an account may hold ({@link QuotaConfig}); {@link #NONE} for the operator's schema files. */
    public record Quotas(long registries, long schemas, long versionsPerSchema, long definitionBytes) {

        public static final Quotas NONE = new Quotas(Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE);

        public static Quotas of(QuotaConfig config) {
            return new Quotas(config.registriesPerAccount(), config.schemasPerAccount(), config.versionsPerSchema(),
                    config.definitionBytesPerAccount().asLongValue());
        }
    }

    /** A write that would pass a quota, refused with nothing written; the message names the setting. */
    public static final class OverQuotaException extends RuntimeException {
        OverQuotaException(String message) {
            super(message, null, false, false);
        }
    }

    /** Work in a transaction that holds its account's row. */
    private interface AccountWork<T> {
        T run(Connection c) throws SQLException;
    }

    private static final String REGISTRY_COLUMNS = "account_id, registry_name, description, created_at, updated_at";
    private static final String VERSION_COLUMNS =
            "version_id, account_id, registry_name, schema_name, version_number, definition, created_at";
    private static final String SCHEMA_COLUMNS = "account_id, registry_name, schema_name, data_format, "
            + "compatibility, description, latest_version, created_at, updated_at";

    private final ServiceDatabase database;

    public SchemaRegistryStore(ServiceDatabase database) {
        this.database = database;
    }

    /**
     * @return false when the registry already exists
     * @throws OverQuotaException when the account has its {@link Quotas#registries} already
     */
    public boolean createRegistry(String account, String name, String description, Instant now, Quotas quotas) {
        return inAccount(account, "create registry " + name, c -> {
            if (registry(c, account, name).isPresent()) {
                return false;
            }
            long registries = count(c, "SELECT COUNT(*) FROM glue_registry WHERE account_id = ?", account);
            if (registries >= quotas.registries()) {
                throw new OverQuotaException("Account " + account + " has " + registries + " registries, its quota "
                        + "(delivery.quotas.registries-per-account): delete one first");
            }
            try (PreparedStatement i = c.prepareStatement("INSERT INTO glue_registry (" + REGISTRY_COLUMNS
                    + ") VALUES (?, ?, ?, ?, ?)")) {
                i.setString(1, account);
                i.setString(2, name);
                i.setString(3, description);
                i.setLong(4, now.toEpochMilli());
                i.setLong(5, now.toEpochMilli());
                i.executeUpdate();
            }
            return true;
        });
    }

    public Optional<Registry> registry(String account, String name) {
        try (Connection c = connect()) {
            return registry(c, account, name);
        } catch (SQLException e) {
            throw failure("read registry " + name, e);
        }
    }

    /** At most {@code limit} registries of the account by name, from the first after {@code after} (null: first). */
    public List<Registry> registries(String account, String after, int limit) {
        String sql = "SELECT " + REGISTRY_COLUMNS + " FROM glue_registry WHERE account_id = ?"
                + (after == null ? "" : " AND registry_name > ?") + " ORDER BY registry_name LIMIT ?";
        return list("list registries", sql, SchemaRegistryStore::registry, account, after, limit);
    }

    /**
     * Creates the schema with its version 1. The registry must exist.
     *
     * @return version 1, or empty when the schema already exists
     * @throws OverQuotaException when the account has its {@link Quotas#schemas} already, or the definition would
     *         pass its {@link Quotas#definitionBytes}
     */
    public Optional<Version> createSchema(String account, String registry, String name, String dataFormat,
            String compatibility, String description, String definition, JsonNode tree, Instant now, Quotas quotas) {
        Version first = new Version(UUID.randomUUID().toString(), account, registry, name, 1, definition, millis(now));
        return inAccount(account, "create schema " + registry + "/" + name, c -> {
            if (schema(c, account, registry, name).isPresent()) {
                return Optional.empty();
            }
            long schemas = count(c, "SELECT COUNT(*) FROM glue_schema WHERE account_id = ?", account);
            if (schemas >= quotas.schemas()) {
                throw new OverQuotaException("Account " + account + " has " + schemas + " schemas, its quota "
                        + "(delivery.quotas.schemas-per-account): delete one first");
            }
            long bytes = checkDefinitionBytes(c, account, definition, quotas);
            try (PreparedStatement i = c.prepareStatement("INSERT INTO glue_schema (" + SCHEMA_COLUMNS
                    + ", definition_bytes) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?)")) {
                i.setString(1, account);
                i.setString(2, registry);
                i.setString(3, name);
                i.setString(4, dataFormat);
                i.setString(5, compatibility);
                i.setString(6, description);
                i.setLong(7, now.toEpochMilli());
                i.setLong(8, now.toEpochMilli());
                i.setLong(9, bytes);
                i.executeUpdate();
            }
            insertVersion(c, first, tree);
            return Optional.of(first);
        });
    }

    public Optional<Schema> schema(String account, String registry, String name) {
        try (Connection c = connect()) {
            return schema(c, account, registry, name);
        } catch (SQLException e) {
            throw failure("read schema " + registry + "/" + name, e);
        }
    }

    /**
     * At most {@code limit} schemas of the account by registry and name, from the first after {@code afterRegistry}
     * / {@code afterSchema} (both null: the first).
     *
     * @param registry null for the schemas of every registry of the account
     */
    public List<Schema> schemas(String account, String registry, String afterRegistry, String afterSchema,
            int limit) {
        String sql = "SELECT " + SCHEMA_COLUMNS + " FROM glue_schema WHERE account_id = ?"
                + (registry == null ? "" : " AND registry_name = ?")
                + (afterRegistry == null ? "" : " AND (registry_name, schema_name) > (?, ?)")
                + " ORDER BY registry_name, schema_name LIMIT ?";
        return list("list schemas", sql, SchemaRegistryStore::schema, account, registry, afterRegistry,
                afterRegistry == null ? null : afterSchema, limit);
    }

    /** At most {@code limit} versions of the schema by number, from the first after {@code after} (0: the first). */
    public List<VersionItem> versions(String account, String registry, String schema, long after, int limit) {
        return list("list the versions of " + registry + "/" + schema, "SELECT version_id, version_number, created_at "
                + "FROM glue_schema_version WHERE account_id = ? AND registry_name = ? AND schema_name = ? "
                + "AND version_number > ? ORDER BY version_number LIMIT ?",
                rs -> new VersionItem(rs.getString(1), rs.getLong(2), Instant.ofEpochMilli(rs.getLong(3))),
                account, registry, schema, after, limit);
    }

    /**
     * Adds the definition as the next version, unless a version with an equal JSON tree exists: then that version
     * is returned, as AWS does, whatever the quotas.
     *
     * @return empty when the schema does not exist
     * @throws OverQuotaException when the schema has its {@link Quotas#versionsPerSchema} already, or the definition
     *         would pass the account's {@link Quotas#definitionBytes}
     */
    public Optional<Registered> registerVersion(String account, String registry, String schema, String definition,
            JsonNode tree, Instant now, Quotas quotas) {
        return inAccount(account, "register a version of " + registry + "/" + schema, c -> {
            Optional<Schema> current = schema(c, account, registry, schema);
            if (current.isEmpty()) {
                return Optional.empty();
            }
            Optional<Version> existing = versionByDefinition(c, account, registry, schema, tree);
            if (existing.isPresent()) {
                return Optional.of(new Registered(existing.get(), false));
            }
            long latest = current.get().latestVersion();
            if (latest >= quotas.versionsPerSchema()) {
                throw new OverQuotaException("Schema " + registry + "/" + schema + " has " + latest + " versions, its "
                        + "quota (delivery.quotas.versions-per-schema): create a new schema for new versions");
            }
            long bytes = checkDefinitionBytes(c, account, definition, quotas);
            try (PreparedStatement u = c.prepareStatement("UPDATE glue_schema SET latest_version = ?, "
                    + "definition_bytes = definition_bytes + ?, updated_at = ? "
                    + "WHERE account_id = ? AND registry_name = ? AND schema_name = ?")) {
                u.setLong(1, latest + 1);
                u.setLong(2, bytes);
                u.setLong(3, now.toEpochMilli());
                u.setString(4, account);
                u.setString(5, registry);
                u.setString(6, schema);
                u.executeUpdate();
            }
            Version added = new Version(UUID.randomUUID().toString(), account, registry, schema, latest + 1,
                    definition, millis(now));
            insertVersion(c, added, tree);
            return Optional.of(new Registered(added, true));
        });
    }

    /** A version by its id, in whichever account: the caller checks that it may read that account. */
    public Optional<Version> version(String versionId) {
        return queryVersion("WHERE version_id = ?", versionId);
    }

    public Optional<Version> version(String account, String registry, String schema, long number) {
        return queryVersion("WHERE account_id = ? AND registry_name = ? AND schema_name = ? AND version_number = ?",
                account, registry, schema, number);
    }

    /** The version whose definition parses to the same JSON tree (key order and blanks do not matter). */
    public Optional<Version> versionByDefinition(String account, String registry, String schema, JsonNode tree) {
        try (Connection c = connect()) {
            return versionByDefinition(c, account, registry, schema, tree);
        } catch (SQLException e) {
            throw failure("find a version of " + registry + "/" + schema, e);
        }
    }

    /** Removes the schema and all its versions, which frees their bytes. @return false when it did not exist */
    public boolean deleteSchema(String account, String registry, String schema) {
        return inAccount(account, "delete schema " + registry + "/" + schema, c -> {
            String where = " WHERE account_id = ? AND registry_name = ? AND schema_name = ?";
            try (PreparedStatement v = c.prepareStatement("DELETE FROM glue_schema_version" + where);
                    PreparedStatement s = c.prepareStatement("DELETE FROM glue_schema" + where)) {
                for (PreparedStatement statement : List.of(v, s)) {
                    statement.setString(1, account);
                    statement.setString(2, registry);
                    statement.setString(3, schema);
                }
                v.executeUpdate();
                return s.executeUpdate() > 0;
            }
        });
    }

    /**
     * Runs {@code work} in one transaction whose first statement takes the account's row
     * ({@link ServiceDatabase#lockAccount}), and commits it; a failure or a refusal rolls it back.
     */
    private <T> T inAccount(String account, String what, AccountWork<T> work) {
        try (Connection c = connect()) {
            c.setAutoCommit(false);
            try {
                ServiceDatabase.lockAccount(c, account);
                T result = work.run(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw failure(what, e);
        }
    }

    /** @return the definition's bytes, once the account's stored ones and these fit its quota */
    private static long checkDefinitionBytes(Connection c, String account, String definition, Quotas quotas)
            throws SQLException {
        long bytes = definition.getBytes(StandardCharsets.UTF_8).length;
        long stored = count(c, "SELECT COALESCE(SUM(definition_bytes), 0) FROM glue_schema WHERE account_id = ?",
                account);
        if (stored + bytes > quotas.definitionBytes()) {
            throw new OverQuotaException("Account " + account + " stores " + stored + " bytes of schema definitions; "
                    + "this one's " + bytes + " would pass its quota of " + quotas.definitionBytes()
                    + " (delivery.quotas.definition-bytes-per-account): delete a schema first");
        }
        return bytes;
    }

    private static long count(Connection c, String sql, String account) throws SQLException {
        try (PreparedStatement q = c.prepareStatement(sql)) {
            q.setString(1, account);
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    private interface Row<T> {
        T read(ResultSet rs) throws SQLException;
    }

    /** The rows of {@code sql}, its parameters the non-null {@code args} in order. */
    private <T> List<T> list(String what, String sql, Row<T> row, Object... args) {
        try (Connection c = connect(); PreparedStatement q = c.prepareStatement(sql)) {
            int n = 1;
            for (Object arg : args) {
                if (arg != null) {
                    q.setObject(n++, arg);
                }
            }
            List<T> rows = new ArrayList<>();
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    rows.add(row.read(rs));
                }
            }
            return rows;
        } catch (SQLException e) {
            throw failure(what, e);
        }
    }

    /** SHA-256 of the tree written with sorted keys and no blanks: equal trees, equal hashes. */
    static String definitionHash(JsonNode tree) {
        try {
            byte[] canonical = MAPPER.writeValueAsBytes(sorted(tree));
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(canonical));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode sorted(JsonNode node) {
        if (node.isObject()) {
            ObjectNode copy = JsonNodeFactory.instance.objectNode();
            TreeMap<String, JsonNode> byKey = new TreeMap<>();
            node.properties().forEach(e -> byKey.put(e.getKey(), e.getValue()));
            byKey.forEach((key, value) -> copy.set(key, sorted(value)));
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = JsonNodeFactory.instance.arrayNode();
            node.forEach(item -> copy.add(sorted(item)));
            return copy;
        }
        return node;
    }

    private Optional<Version> versionByDefinition(Connection c, String account, String registry, String schema,
            JsonNode tree) throws SQLException {
        try (PreparedStatement q = c.prepareStatement("SELECT " + VERSION_COLUMNS + " FROM glue_schema_version "
                + "WHERE account_id = ? AND registry_name = ? AND schema_name = ? AND definition_hash = ? "
                + "ORDER BY version_number")) {
            q.setString(1, account);
            q.setString(2, registry);
            q.setString(3, schema);
            q.setString(4, definitionHash(tree));
            try (ResultSet rs = q.executeQuery()) {
                return rs.next() ? Optional.of(version(rs)) : Optional.empty();
            }
        }
    }

    private Optional<Version> queryVersion(String where, Object... args) {
        try (Connection c = connect(); PreparedStatement q = c.prepareStatement(
                "SELECT " + VERSION_COLUMNS + " FROM glue_schema_version " + where)) {
            for (int i = 0; i < args.length; i++) {
                q.setObject(i + 1, args[i]);
            }
            try (ResultSet rs = q.executeQuery()) {
                return rs.next() ? Optional.of(version(rs)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw failure("read a schema version", e);
        }
    }

    private static void insertVersion(Connection c, Version v, JsonNode tree) throws SQLException {
        try (PreparedStatement i = c.prepareStatement("INSERT INTO glue_schema_version (" + VERSION_COLUMNS
                + ", definition_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
            i.setString(1, v.id());
            i.setString(2, v.account());
            i.setString(3, v.registry());
            i.setString(4, v.schema());
            i.setLong(5, v.number());
            i.setString(6, v.definition());
            i.setLong(7, v.created().toEpochMilli());
            i.setString(8, definitionHash(tree));
            i.executeUpdate();
        }
    }

    private static Optional<Registry> registry(Connection c, String account, String name) throws SQLException {
        try (PreparedStatement q = c.prepareStatement("SELECT " + REGISTRY_COLUMNS
                + " FROM glue_registry WHERE account_id = ? AND registry_name = ?")) {
            q.setString(1, account);
            q.setString(2, name);
            try (ResultSet rs = q.executeQuery()) {
                return rs.next() ? Optional.of(registry(rs)) : Optional.empty();
            }
        }
    }

    private static Optional<Schema> schema(Connection c, String account, String registry, String name)
            throws SQLException {
        try (PreparedStatement q = c.prepareStatement("SELECT " + SCHEMA_COLUMNS + " FROM glue_schema "
                + "WHERE account_id = ? AND registry_name = ? AND schema_name = ?")) {
            q.setString(1, account);
            q.setString(2, registry);
            q.setString(3, name);
            try (ResultSet rs = q.executeQuery()) {
                return rs.next() ? Optional.of(schema(rs)) : Optional.empty();
            }
        }
    }

    private static Registry registry(ResultSet rs) throws SQLException {
        return new Registry(rs.getString(1), rs.getString(2), rs.getString(3), Instant.ofEpochMilli(rs.getLong(4)),
                Instant.ofEpochMilli(rs.getLong(5)));
    }

    private static Schema schema(ResultSet rs) throws SQLException {
        return new Schema(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                rs.getString(6), rs.getLong(7), Instant.ofEpochMilli(rs.getLong(8)), Instant.ofEpochMilli(rs.getLong(9)));
    }

    private static Version version(ResultSet rs) throws SQLException {
        return new Version(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getLong(5),
                rs.getString(6), Instant.ofEpochMilli(rs.getLong(7)));
    }

    /** What the database keeps (epoch milliseconds), so that a returned version equals the one read back. */
    private static Instant millis(Instant instant) {
        return instant.truncatedTo(ChronoUnit.MILLIS);
    }

    private Connection connect() throws SQLException {
        return database.connect();
    }

    private IllegalStateException failure(String what, SQLException e) {
        return database.failed(what, e);
    }

}
