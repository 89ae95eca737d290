-- One lease table for every kind (Leases): the shard leases of ingest and the table maintenance leases of commit,
-- taken, renewed and given up by the same statements. A shard's key is "<channel ARN> <shard id>"; a table's is its
-- Catalogs.tableKey, and channel_arn is then the channel its holder maintains it for. The rows move over as they are
-- (a shard lease's epoch starts at 0). Portable SQL, as V1.
CREATE TABLE delivery_leases (
    kind VARCHAR(16) NOT NULL,
    lease_key VARCHAR(2400) NOT NULL,
    channel_arn VARCHAR(2048) NOT NULL,
    owner VARCHAR(256) NOT NULL,
    expires_at_ms BIGINT NOT NULL,
    epoch BIGINT NOT NULL,
    finished SMALLINT NOT NULL,
    PRIMARY KEY (kind, lease_key));
CREATE INDEX delivery_leases_channel ON delivery_leases (channel_arn);
INSERT INTO delivery_leases (kind, lease_key, channel_arn, owner, expires_at_ms, epoch, finished)
    SELECT 'shard', channel_arn || ' ' || shard_id, channel_arn, owner, expires_at_ms, 0, finished
    FROM delivery_shard_leases;
INSERT INTO delivery_leases (kind, lease_key, channel_arn, owner, expires_at_ms, epoch, finished)
    SELECT 'table', table_key, channel_arn, owner, expires_at_ms, epoch, 0 FROM delivery_table_leases;
DROP TABLE delivery_shard_leases;
DROP TABLE delivery_table_leases;
