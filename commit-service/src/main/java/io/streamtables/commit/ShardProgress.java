package io.streamtables.commit;

import io.streamtables.bus.Reject;
import io.streamtables.bus.Sequences;
import java.util.ArrayList;
import java.util.List;

/**
 * One shard's progress inside a commit-service: the watermark committed in the table, the highest
 * sequence buffered since, and the rejects buffered with it.
 */
final class ShardProgress {

    private String committed;
    private String buffered;
    private List<Reject> rejects = new ArrayList<>();

    ShardProgress(String committed) {
        this.committed = committed;
        this.buffered = committed;
    }

    /** True when the record is already in the table or in the open buffer: a replay to drop. */
    boolean seen(String sequence) {
        return Sequences.atOrBelow(sequence, buffered);
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

    /** Takes the rejects buffered since the last cut. */
    List<Reject> takeRejects() {
        List<Reject> taken = rejects;
        rejects = new ArrayList<>();
        return taken;
    }

    void committedUpTo(String watermark) {
        committed = Sequences.max(committed, watermark);
    }
}
