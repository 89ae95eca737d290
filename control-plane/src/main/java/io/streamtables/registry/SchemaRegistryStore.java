package io.streamtables.registry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamtables.state.ServiceDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
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

    /** The outcome of registering a definition: {@code created} is false when an equal version already existed. */
    public record Registered(Version version, boolean created) {
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

    /** @return false when the registry already exists */
    public synchronized boolean createRegistry(String account, String name, String description, Instant now) {
        try (Connection c = connect()) {
            if (registry(c, account, name).isPresent()) {
                return false;
            }
            try (PreparedStatement i = c.prepareStatement("INSERT INTO glue_registry (" + REGISTRY_COLUMNS
                    + ") VALUES (?, ?, ?, ?, ?)")) {
                i.setString(1, account);
                i.setString(2, name);
                i.setString(3, description);
                i.setLong(4, now.toEpochMilli());
                i.setLong(5, now.toEpochMilli());
                i.executeUpdate();
                return true;
            } catch (SQLException e) {
                // another process sharing the database created it in between
                if (registry(c, account, name).isPresent()) {
                    return false;
                }
                throw e;
            }
        } catch (SQLException e) {
            throw failure("create registry " + name, e);
        }
    }

    public synchronized Optional<Registry> registry(String account, String name) {
        try (Connection c = connect()) {
            return registry(c, account, name);
        } catch (SQLException e) {
            throw failure("read registry " + name, e);
        }
    }

    public synchronized List<Registry> registries(String account) {
        try (Connection c = connect(); PreparedStatement q = c.prepareStatement("SELECT " + REGISTRY_COLUMNS
                + " FROM glue_registry WHERE account_id = ? ORDER BY registry_name")) {
            q.setString(1, account);
            List<Registry> all = new ArrayList<>();
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    all.add(registry(rs));
                }
            }
            return all;
        } catch (SQLException e) {
            throw failure("list registries", e);
        }
    }

    /**
     * Creates the schema with its version 1. The registry must exist.
     *
     * @return version 1, or empty when the schema already exists
     */
    public synchronized Optional<Version> createSchema(String account, String registry, String name,
            String dataFormat, String compatibility, String description, String definition, JsonNode tree,
            Instant now) {
        Version first = new Version(UUID.randomUUID().toString(), account, registry, name, 1, definition, millis(now));
        try (Connection c = connect()) {
            c.setAutoCommit(false);
            try {
                if (schema(c, account, registry, name).isPresent()) {
                    c.rollback();
                    return Optional.empty();
                }
                try (PreparedStatement i = c.prepareStatement("INSERT INTO glue_schema (" + SCHEMA_COLUMNS
                        + ") VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)")) {
                    i.setString(1, account);
                    i.setString(2, registry);
                    i.setString(3, name);
                    i.setString(4, dataFormat);
                    i.setString(5, compatibility);
                    i.setString(6, description);
                    i.setLong(7, now.toEpochMilli());
                    i.setLong(8, now.toEpochMilli());
                    i.executeUpdate();
                }
                insertVersion(c, first, tree);
                c.commit();
                return Optional.of(first);
            } catch (SQLException e) {
                c.rollback();
                c.setAutoCommit(true);
                if (schema(c, account, registry, name).isPresent()) {
                    return Optional.empty();
                }
                throw e;
            }
        } catch (SQLException e) {
            throw failure("create schema " + registry + "/" + name, e);
        }
    }

    public synchronized Optional<Schema> schema(String account, String registry, String name) {
        try (Connection c = connect()) {
            return schema(c, account, registry, name);
        } catch (SQLException e) {
            throw failure("read schema " + registry + "/" + name, e);
        }
    }

    /** How many schemas the account has, in all its registries. */
    public synchronized long countSchemas(String account) {
        try (Connection c = connect();
                PreparedStatement q = c.prepareStatement("SELECT COUNT(*) FROM glue_schema WHERE account_id = ?")) {
            q.setString(1, account);
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw failure("count schemas", e);
        }
    }

    /** @param registry null for the schemas of every registry of the account */
    public synchronized List<Schema> schemas(String account, String registry) {
        String sql = "SELECT " + SCHEMA_COLUMNS + " FROM glue_schema WHERE account_id = ?"
                + (registry == null ? "" : " AND registry_name = ?") + " ORDER BY registry_name, schema_name";
        try (Connection c = connect(); PreparedStatement q = c.prepareStatement(sql)) {
            q.setString(1, account);
            if (registry != null) {
                q.setString(2, registry);
            }
            List<Schema> all = new ArrayList<>();
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    all.add(schema(rs));
                }
            }
            return all;
        } catch (SQLException e) {
            throw failure("list schemas", e);
        }
    }

    /**
     * Adds the definition as the next version, unless a version with an equal JSON tree exists: then that version
     * is returned, as AWS does.
     *
     * @return empty when the schema does not exist
     */
    public synchronized Optional<Registered> registerVersion(String account, String registry, String schema,
            String definition, JsonNode tree, Instant now) {
        try (Connection c = connect()) {
            c.setAutoCommit(false);
            try {
                // the update first: it locks the schema row (PostgreSQL) or the database (SQLite) until commit,
                // so two writers cannot both pick the same next number or both add the same definition
                try (PreparedStatement u = c.prepareStatement("UPDATE glue_schema SET "
                        + "latest_version = latest_version + 1, updated_at = ? "
                        + "WHERE account_id = ? AND registry_name = ? AND schema_name = ?")) {
                    u.setLong(1, now.toEpochMilli());
                    u.setString(2, account);
                    u.setString(3, registry);
                    u.setString(4, schema);
                    if (u.executeUpdate() == 0) {
                        c.rollback();
                        return Optional.empty();
                    }
                }
                Optional<Version> existing = versionByDefinition(c, account, registry, schema, tree);
                if (existing.isPresent()) {
                    c.rollback();
                    return Optional.of(new Registered(existing.get(), false));
                }
                long number = schema(c, account, registry, schema).orElseThrow().latestVersion();
                Version added = new Version(UUID.randomUUID().toString(), account, registry, schema, number,
                        definition, millis(now));
                insertVersion(c, added, tree);
                c.commit();
                return Optional.of(new Registered(added, true));
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw failure("register a version of " + registry + "/" + schema, e);
        }
    }

    /** A version by its id, in whichever account: the caller checks that it may read that account. */
    public synchronized Optional<Version> version(String versionId) {
        return queryVersion("WHERE version_id = ?", versionId);
    }

    public synchronized Optional<Version> version(String account, String registry, String schema, long number) {
        return queryVersion("WHERE account_id = ? AND registry_name = ? AND schema_name = ? AND version_number = ?",
                account, registry, schema, number);
    }

    /** The version whose definition parses to the same JSON tree (key order and blanks do not matter). */
    public synchronized Optional<Version> versionByDefinition(String account, String registry, String schema,
            JsonNode tree) {
        try (Connection c = connect()) {
            return versionByDefinition(c, account, registry, schema, tree);
        } catch (SQLException e) {
            throw failure("find a version of " + registry + "/" + schema, e);
        }
    }

    /** Removes the schema and all its versions. @return false when it did not exist */
    public synchronized boolean deleteSchema(String account, String registry, String schema) {
        try (Connection c = connect()) {
            c.setAutoCommit(false);
            String where = " WHERE account_id = ? AND registry_name = ? AND schema_name = ?";
            try (PreparedStatement v = c.prepareStatement("DELETE FROM glue_schema_version" + where);
                    PreparedStatement s = c.prepareStatement("DELETE FROM glue_schema" + where)) {
                for (PreparedStatement statement : List.of(v, s)) {
                    statement.setString(1, account);
                    statement.setString(2, registry);
                    statement.setString(3, schema);
                }
                v.executeUpdate();
                boolean deleted = s.executeUpdate() > 0;
                c.commit();
                return deleted;
            } catch (SQLException e) {
                c.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw failure("delete schema " + registry + "/" + schema, e);
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
