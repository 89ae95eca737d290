package io.streamtables.bus;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A record that cannot be delivered: its identifiers and the error, never its payload (SPEC D2).
 *
 * @param field the JSON pointer of the failing field, when there is one
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Reject(String streamArn, String shardId, String sequenceNumber, long arrivalMillis,
        ErrorCode errorCode, String errorMessage, String field) {
}
