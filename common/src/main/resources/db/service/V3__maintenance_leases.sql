-- Table maintenance leases (MaintenanceLeases): one instance at a time compacts and expires a channel's table.
-- epoch grows each time the lease changes hands; a holder's maintenance commits carry it in the table, so a
-- holder paused past its lease is fenced by the next one's commits. Portable SQL, as V1.
CREATE TABLE delivery_maintenance_leases (
    channel_arn VARCHAR(2048) PRIMARY KEY,
    owner VARCHAR(256) NOT NULL,
    expires_at_ms BIGINT NOT NULL,
    epoch BIGINT NOT NULL);
