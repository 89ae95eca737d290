package io.streamtables.bus;

/**
 * The commit stage refuses a chunk that does not continue what it holds (its buffer was discarded after a
 * failure): the shard must be read again after {@code resumeAfter} (null: from the channel's activation).
 */
public class RewindException extends RuntimeException {

    private final String shardId;
    private final String resumeAfter;

    public RewindException(String shardId, String resumeAfter) {
        super("shard " + shardId + " must be read again after " + (resumeAfter == null ? "activation" : resumeAfter),
                null, false, false);
        this.shardId = shardId;
        this.resumeAfter = resumeAfter;
    }

    public String shardId() {
        return shardId;
    }

    public String resumeAfter() {
        return resumeAfter;
    }

    /** The rewind request in a failure's cause chain, or null. */
    public static RewindException in(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof RewindException r) {
                return r;
            }
        }
        return null;
    }
}
