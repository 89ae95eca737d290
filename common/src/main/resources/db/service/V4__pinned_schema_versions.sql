-- The schema version a channel decodes with (issue 20): the latest when the channel became ACTIVE, kept for good.
-- Null for channels activated by earlier releases: they decode with the latest version each process first meets.
-- Portable SQL, as V1.
ALTER TABLE delivery_channels ADD COLUMN schema_version_id VARCHAR(36);
