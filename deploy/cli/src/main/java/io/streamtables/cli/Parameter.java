package io.streamtables.cli;

/**
 * One flag of an operation and the request member it fills, named as the AWS CLI names it (the member in
 * kebab case), so the seed's {@code aws kinesis ...} commands read the same here.
 */
record Parameter(String flag, String member, Kind kind, boolean required) {

    /** How the flag's text becomes the member's JSON value. */
    enum Kind {
        STRING,
        INTEGER,
        /** A JSON object, inline or {@code file://}. */
        STRUCTURE,
        /** A JSON array; a lone object is taken as a list of one, as the seed's {@code --stream-filter} passes it. */
        LIST
    }

    static Parameter required(String flag, String member, Kind kind) {
        return new Parameter(flag, member, kind, true);
    }

    static Parameter optional(String flag, String member, Kind kind) {
        return new Parameter(flag, member, kind, false);
    }
}
