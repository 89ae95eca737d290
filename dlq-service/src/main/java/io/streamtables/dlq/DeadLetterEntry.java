package io.streamtables.dlq;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.streamtables.bus.Reject;
import java.time.Instant;

/** One line of a DLQ object: identifiers and error context, never the payload (SPEC D2). */
@JsonInclude(JsonInclude.Include.NON_NULL)
record DeadLetterEntry(String channelArn, String streamArn, String shardId, String sequenceNumber,
        String approximateArrivalTimestamp, String errorCode, String errorMessage, String field) {

    static DeadLetterEntry of(String channelArn, Reject r) {
        return new DeadLetterEntry(channelArn, r.streamArn(), r.shardId(), r.sequenceNumber(),
                Instant.ofEpochMilli(r.arrivalMillis()).toString(), r.errorCode().name(), r.errorMessage(), r.field());
    }
}
