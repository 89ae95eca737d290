-- An account's quotas hold under concurrency (ServiceDatabase.lockAccount): every write of an account's channels,
-- registries, schemas and versions first upserts the account's row here, which holds the row's lock (PostgreSQL) or
-- the database's write lock (SQLite) until it commits, so that the counts a quota checks and the insert it allows are
-- one transaction, one account's writes after the other, in every control plane sharing the database.
-- definition_bytes: the UTF-8 bytes of a schema's version definitions, which delivery.quotas.definition-bytes-per-
-- account sums over the account's schemas. Portable SQL, as V1.
CREATE TABLE delivery_accounts (
    account_id CHAR(12) PRIMARY KEY);
ALTER TABLE glue_schema ADD COLUMN definition_bytes BIGINT NOT NULL DEFAULT 0;
UPDATE glue_schema SET definition_bytes = (
    SELECT COALESCE(SUM(OCTET_LENGTH(v.definition)), 0) FROM glue_schema_version v
    WHERE v.account_id = glue_schema.account_id AND v.registry_name = glue_schema.registry_name
        AND v.schema_name = glue_schema.schema_name);
