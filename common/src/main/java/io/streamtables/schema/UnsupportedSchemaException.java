package io.streamtables.schema;

/** A JSON Schema the Iceberg mapping cannot take; the message names the JSON pointer of the part. */
public class UnsupportedSchemaException extends IllegalArgumentException {
    public UnsupportedSchemaException(String pointer, String message) {
        super("schema " + (pointer.isEmpty() ? "root" : pointer) + ": " + message);
    }
}
