package io.streamtables.watermarks;

import io.streamtables.bus.CommitToken;
import io.streamtables.bus.Reject;
import io.streamtables.bus.RewindException;
import io.streamtables.bus.Sequences;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One shard's progress inside a commit instance: the watermark committed in the table, the highest sequence taken
 * into a cut that waits for its commit, the highest sequence buffered since, and the buffered rejects. Not
 * thread-safe: its buffer guards it.
 */
public final class ShardProgress {

    private String committed;
    private String cut;
    private String buffered;
    private List<Reject> rejects = new ArrayList<>();

    /** @param committed the shard's watermark in the table, null when it has none */
    public ShardProgress(String committed) {
        this.committed = committed;
        this.cut = committed;
        this.buffered = committed;
    }

    /** What of a chunk the shard takes: its records after {@code after}; none when it is a replay. */
    public record Accepted(boolean replay, String after) {

        public boolean takes(String sequence) {
            return !replay && !Sequences.atOrBelow(sequence, after);
        }
    }

    /**
     * Accept or drop. A chunk must continue what the shard holds (committed, cut or buffered): its previous sequence
     * is the shard's high mark, or below it (an overlap: its records up to the mark are dropped), or null (read from
     * the channel's activation: it overlaps anything). A chunk wholly at or below the mark is a replay.
     *
     * @throws RewindException when records between the high mark and the chunk are missing: the shard must be read
     *     again after the mark
     */
    public Accepted accept(CommitToken chunk) {
        if (Sequences.atOrBelow(chunk.lastSequence(), buffered)) {
            return new Accepted(true, buffered);
        }
        String previous = chunk.previousSequence();
        boolean continues = previous == null || Objects.equals(previous, buffered)
                || (buffered != null && Sequences.atOrBelow(previous, buffered));
        if (!continues) {
            throw new RewindException(chunk.shardId(), buffered);
        }
        return new Accepted(false, buffered);
    }

    /** The chunk's records were taken, up to its last sequence. */
    public void advanceTo(String sequence) {
        buffered = Sequences.max(buffered, sequence);
    }

    public void reject(Reject reject) {
        rejects.add(reject);
    }

    public String high() {
        return buffered;
    }

    public String committed() {
        return committed;
    }

    public boolean hasUncommitted() {
        return buffered != null && !buffered.equals(committed);
    }

    /** Takes what is buffered into a cut: its rejects, and its high mark as what the cut will commit. */
    public List<Reject> takeForCut() {
        cut = buffered;
        List<Reject> taken = rejects;
        rejects = new ArrayList<>();
        return taken;
    }

    /** The table holds the shard up to {@code watermark}; an older acknowledgement moves nothing back. */
    public void committedUpTo(String watermark) {
        committed = Sequences.max(committed, watermark);
        buffered = Sequences.max(buffered, committed);
    }

    /** Forgets what is buffered but not yet cut; a cut waiting for its commit stays counted. */
    public void discardOpen() {
        buffered = Sequences.max(committed, cut);
        rejects = new ArrayList<>();
    }

    /** Forgets everything not committed, including a cut that will never be committed. */
    public void discardAll() {
        cut = committed;
        buffered = committed;
        rejects = new ArrayList<>();
    }
}
