-- What every stage runs with (issue 37): each UpdateChannel gives the channel the next revision of one counter,
-- taken in the update's transaction (so revisions commit in order); each process records the highest revision of
-- the rows it last read, and when. A channel is UPDATING until every process that read the channels lately has read
-- its revision. Portable SQL, as V1.
ALTER TABLE delivery_channels ADD COLUMN revision BIGINT NOT NULL DEFAULT 0;
CREATE TABLE delivery_revision (
    id INTEGER PRIMARY KEY,
    value BIGINT NOT NULL);
INSERT INTO delivery_revision (id, value) VALUES (1, 0);
CREATE TABLE delivery_readers (
    instance VARCHAR(256) PRIMARY KEY,
    revision BIGINT NOT NULL,
    read_at_ms BIGINT NOT NULL);
