package io.streamtables.commit;

import io.streamtables.bus.Reject;
import io.streamtables.bus.Sequences;
import java.util.ArrayList;
import java.util.List;

/**
 * One shard's progress inside a commit-service: the watermark committed in the table, the highest sequence
 * taken into a cut that waits for its commit, the highest sequence buffered since, and the buffered rejects.
 */
final class ShardProgress {

    private String committed;
    private String cut;
    private String buffered;
    private List<Reject> rejects = new ArrayList<>();

    ShardProgress(String committed) {
        this.committed = committed;
        this.cut = committed;
        this.buffered = committed;
    }

    String high() {
        return buffered;
    }

    void advanceTo(String sequence) {
        buffered = Sequences.max(buffered, sequence);
    }

    void reject(Reject reject) {
        rejects.add(reject);
    }

    String committed() {
        return committed;
    }

    boolean hasUncommitted() {
        return buffered != null && !buffered.equals(committed);
    }

    /** Takes what is buffered into a cut: its rejects, and its high mark as what the cut will commit. */
    List<Reject> takeForCut() {
        cut = buffered;
        List<Reject> taken = rejects;
        rejects = new ArrayList<>();
        return taken;
    }

    void committedUpTo(String watermark) {
        committed = Sequences.max(committed, watermark);
        buffered = Sequences.max(buffered, committed);
    }

    /** Forgets what is buffered but not yet cut; a cut waiting for its commit stays counted. */
    void discardOpen() {
        buffered = Sequences.max(committed, cut);
        rejects = new ArrayList<>();
    }

    /** Forgets everything not committed, including a cut that will never be committed. */
    void discardAll() {
        cut = committed;
        buffered = committed;
        rejects = new ArrayList<>();
    }
}
