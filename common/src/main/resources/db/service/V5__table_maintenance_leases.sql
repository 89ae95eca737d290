-- Maintenance leases keyed by table (issue 36): channels naming one table in a shared catalog maintain it one at a
-- time. channel_arn is the channel whose run holds it (DeleteChannel waits for it). Leases are short-lived: the old
-- ones are dropped, and a table's epoch, kept in the table, raises a new lease past any an older run held.
-- Portable SQL, as V1.
CREATE TABLE delivery_table_leases (
    table_key VARCHAR(2048) PRIMARY KEY,
    channel_arn VARCHAR(2048) NOT NULL,
    owner VARCHAR(256) NOT NULL,
    expires_at_ms BIGINT NOT NULL,
    epoch BIGINT NOT NULL);
DROP TABLE delivery_maintenance_leases;
