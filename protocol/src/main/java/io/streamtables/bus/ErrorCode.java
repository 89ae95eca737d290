package io.streamtables.bus;

/** Dead-letter codes (SPEC D3; the last three: a schema version the table cannot take). */
public enum ErrorCode {
    INVALID_SCHEMA,
    DESERIALIZATION_ERROR,
    SCHEMA_VALIDATION_FAILED,
    MISSING_PARTITION_VALUE,
    TYPE_CONVERSION_FAILED,
    RECORD_TOO_LARGE,
    /** The version changes a column's type other than int → long or float → double. */
    INCOMPATIBLE_TYPE_CHANGE,
    /** The version adds a required field, or lacks a field whose column is required. */
    INCOMPATIBLE_REQUIRED_FIELD,
    /** The version changes the partition source field. */
    INCOMPATIBLE_PARTITION_CHANGE
}
