package io.streamtables.bus;

/** dlq → commit: the batch with this key is durably stored ({@code error == null}) or failed. */
public record DlqAck(String objectKey, String error) {

    public boolean stored() {
        return error == null;
    }
}
