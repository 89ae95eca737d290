package io.streamtables.watermarks;

/** The table no longer takes the channel's files: it was changed outside the service (SPEC C4: SUSPENDED). */
public final class IncompatibleTableException extends IllegalStateException {

    public IncompatibleTableException(String message) {
        super(message);
    }
}
