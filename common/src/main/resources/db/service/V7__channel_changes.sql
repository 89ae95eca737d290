-- How many times the channels' rows changed (issue 39): every write of delivery_channels counts one more, in its own
-- transaction, so a process reads the rows again only when the count moved (every stage of every process read
-- every row every second: most of an idle instance's work with a thousand channels). Portable SQL, as V1.
CREATE TABLE delivery_channel_changes (
    id INTEGER PRIMARY KEY,
    value BIGINT NOT NULL);
INSERT INTO delivery_channel_changes (id, value) VALUES (1, 0);
