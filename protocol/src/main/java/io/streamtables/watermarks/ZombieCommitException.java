package io.streamtables.watermarks;

/**
 * The table moved past the watermarks a cut started from: another writer took the shard over (this instance was
 * paused past its lease, say), and the cut must be dropped, its records read again by the shard's owner.
 */
public final class ZombieCommitException extends IllegalStateException {

    ZombieCommitException(String message) {
        super(message);
    }
}
