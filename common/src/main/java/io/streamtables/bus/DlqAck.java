package io.streamtables.bus;

/**
 * dlq → commit: the batch with this key is durably stored ({@code error == null}), failed (try again), or was
 * refused by the bucket ({@code refused}: its owner is not the expected one, or it is gone; trying again will not
 * help).
 */
public record DlqAck(String objectKey, String error, boolean refused) {

    public static DlqAck stored(String objectKey) {
        return new DlqAck(objectKey, null, false);
    }

    public boolean stored() {
        return error == null;
    }
}
