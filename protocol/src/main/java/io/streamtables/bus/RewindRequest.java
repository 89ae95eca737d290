package io.streamtables.bus;

/**
 * commit → ingest: the commit stage refused {@code refused} because it does not continue what it holds; the
 * shard must be read again after {@code resumeAfter} (null: from the channel's activation). Over Kafka this
 * message replaces the {@link RewindException} that reaches the reader in process (docs/DESIGN.md).
 */
public record RewindRequest(int version, CommitToken refused, String resumeAfter) {

    public static final int VERSION = 1;

    public RewindRequest(CommitToken refused, String resumeAfter) {
        this(VERSION, refused, resumeAfter);
    }
}
