package io.streamtables.bus;

/** Dead-letter codes (SPEC D3). */
public enum ErrorCode {
    INVALID_SCHEMA,
    DESERIALIZATION_ERROR,
    SCHEMA_VALIDATION_FAILED,
    MISSING_PARTITION_VALUE,
    TYPE_CONVERSION_FAILED,
    RECORD_TOO_LARGE
}
