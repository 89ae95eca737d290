-- The service database's tables as every release before migrations created them: IF NOT EXISTS, so that a
-- database of such a release (tables, no history yet; see baseline-version in microprofile-config.properties)
-- keeps its rows. Portable SQL: the same file runs on SQLite and PostgreSQL.

-- Channels: their CreateChannel definition, status, and activation time (ChannelStore)
CREATE TABLE IF NOT EXISTS delivery_channels (
    channel_arn VARCHAR(2048) PRIMARY KEY,
    channel_name VARCHAR(128) NOT NULL UNIQUE,
    definition TEXT NOT NULL,
    status VARCHAR(32) NOT NULL,
    status_reason TEXT,
    created_at BIGINT NOT NULL,
    activated_at BIGINT);

-- Shard leases and the live ingest instances (ShardLeases)
CREATE TABLE IF NOT EXISTS delivery_shard_leases (
    channel_arn VARCHAR(2048) NOT NULL,
    shard_id VARCHAR(256) NOT NULL,
    owner VARCHAR(256) NOT NULL,
    expires_at_ms BIGINT NOT NULL,
    finished SMALLINT NOT NULL,
    PRIMARY KEY (channel_arn, shard_id));

CREATE TABLE IF NOT EXISTS delivery_ingest_instances (
    owner VARCHAR(256) PRIMARY KEY,
    expires_at_ms BIGINT NOT NULL);

-- The Glue-compatible schema registry (SchemaRegistryStore)
CREATE TABLE IF NOT EXISTS glue_registry (
    registry_name VARCHAR(255) PRIMARY KEY,
    description VARCHAR(2048),
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL);

CREATE TABLE IF NOT EXISTS glue_schema (
    registry_name VARCHAR(255) NOT NULL,
    schema_name VARCHAR(255) NOT NULL,
    data_format VARCHAR(16) NOT NULL,
    compatibility VARCHAR(16) NOT NULL,
    description VARCHAR(2048),
    latest_version BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (registry_name, schema_name));

-- definition_hash: SHA-256 of the canonical JSON (sorted keys, no blanks), so that a definition is found by its
-- parsed tree with an index instead of by its text
CREATE TABLE IF NOT EXISTS glue_schema_version (
    version_id CHAR(36) PRIMARY KEY,
    registry_name VARCHAR(255) NOT NULL,
    schema_name VARCHAR(255) NOT NULL,
    version_number BIGINT NOT NULL,
    definition TEXT NOT NULL,
    definition_hash CHAR(64) NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (registry_name, schema_name, version_number));

CREATE INDEX IF NOT EXISTS glue_schema_version_hash
    ON glue_schema_version (registry_name, schema_name, definition_hash);
