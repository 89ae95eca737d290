package io.streamtables.convert;

import io.streamtables.bus.ErrorCode;

/** A record that cannot become a row; the message names the field and the rule, never the value. */
public class ConversionException extends RuntimeException {

    private final ErrorCode code;
    private final String field;

    public ConversionException(ErrorCode code, String field, String message) {
        super(message, null, false, false);
        this.code = code;
        this.field = field;
    }

    public ErrorCode code() {
        return code;
    }

    /** JSON pointer of the failing field, or null. */
    public String field() {
        return field;
    }
}
