package io.streamtables.channel;

/** A channel operation refused; the kind maps to the AWS error type the SDKs know, the message says what to fix. */
public class ChannelException extends RuntimeException {

    public enum Kind { INVALID_ARGUMENT, NOT_FOUND, IN_USE, LIMIT_EXCEEDED }

    private final Kind kind;

    public ChannelException(Kind kind, String message) {
        super(message, null, false, false);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
