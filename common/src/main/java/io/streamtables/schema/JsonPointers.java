package io.streamtables.schema;

/** JSON pointers (RFC 6901), as schema errors and dead letters name fields. */
public final class JsonPointers {

    private JsonPointers() {
    }

    /** A name as one reference token of a pointer: {@code ~} and {@code /} escaped. */
    public static String token(String name) {
        return name.replace("~", "~0").replace("/", "~1");
    }
}
