package io.streamtables.bus;

/**
 * dlq → commit: the version of an object (its key and last sequence number) is durably stored
 * ({@code error == null}), failed (try again), or was refused by the bucket ({@code refused}: its owner is not the
 * expected one, or it is gone; trying again will not help).
 */
public record DlqAck(String objectKey, String lastSequence, String error, boolean refused) {

    public static DlqAck stored(DlqBatch batch) {
        return new DlqAck(batch.objectKey(), batch.lastSequence(), null, false);
    }

    public static DlqAck failed(DlqBatch batch, String error, boolean refused) {
        return new DlqAck(batch.objectKey(), batch.lastSequence(), error, refused);
    }

    public boolean stored() {
        return error == null;
    }

    /** What an acknowledgement is matched by: the key and the version. */
    public String version() {
        return objectKey + "@" + lastSequence;
    }

    public static String version(DlqBatch batch) {
        return batch.objectKey() + "@" + batch.lastSequence();
    }
}
