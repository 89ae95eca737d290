-- Accounts own their channels and schemas (README "Authentication"): two accounts may use the same channel,
-- registry and schema names. A channel's account is in its ARN, so the name is no longer unique on its own;
-- registry rows get the account, those of earlier releases the operator's (delivery.account-id). Tables are
-- rebuilt rather than altered: SQLite cannot change a key in place. Portable SQL, as V1.

CREATE TABLE delivery_channels_v2 (
    channel_arn VARCHAR(2048) PRIMARY KEY,
    channel_name VARCHAR(128) NOT NULL,
    definition TEXT NOT NULL,
    status VARCHAR(32) NOT NULL,
    status_reason TEXT,
    created_at BIGINT NOT NULL,
    activated_at BIGINT);
INSERT INTO delivery_channels_v2
    SELECT channel_arn, channel_name, definition, status, status_reason, created_at, activated_at
    FROM delivery_channels;
DROP TABLE delivery_channels;
ALTER TABLE delivery_channels_v2 RENAME TO delivery_channels;

CREATE TABLE glue_registry_v2 (
    account_id CHAR(12) NOT NULL,
    registry_name VARCHAR(255) NOT NULL,
    description VARCHAR(2048),
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, registry_name));
INSERT INTO glue_registry_v2
    SELECT '${default_account}', registry_name, description, created_at, updated_at FROM glue_registry;
DROP TABLE glue_registry;
ALTER TABLE glue_registry_v2 RENAME TO glue_registry;

CREATE TABLE glue_schema_v2 (
    account_id CHAR(12) NOT NULL,
    registry_name VARCHAR(255) NOT NULL,
    schema_name VARCHAR(255) NOT NULL,
    data_format VARCHAR(16) NOT NULL,
    compatibility VARCHAR(16) NOT NULL,
    description VARCHAR(2048),
    latest_version BIGINT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, registry_name, schema_name));
INSERT INTO glue_schema_v2
    SELECT '${default_account}', registry_name, schema_name, data_format, compatibility, description,
        latest_version, created_at, updated_at
    FROM glue_schema;
DROP TABLE glue_schema;
ALTER TABLE glue_schema_v2 RENAME TO glue_schema;

CREATE TABLE glue_schema_version_v2 (
    version_id CHAR(36) PRIMARY KEY,
    account_id CHAR(12) NOT NULL,
    registry_name VARCHAR(255) NOT NULL,
    schema_name VARCHAR(255) NOT NULL,
    version_number BIGINT NOT NULL,
    definition TEXT NOT NULL,
    definition_hash CHAR(64) NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (account_id, registry_name, schema_name, version_number));
INSERT INTO glue_schema_version_v2
    SELECT version_id, '${default_account}', registry_name, schema_name, version_number, definition,
        definition_hash, created_at
    FROM glue_schema_version;
DROP INDEX IF EXISTS glue_schema_version_hash;
DROP TABLE glue_schema_version;
ALTER TABLE glue_schema_version_v2 RENAME TO glue_schema_version;
CREATE INDEX glue_schema_version_hash
    ON glue_schema_version (account_id, registry_name, schema_name, definition_hash);
