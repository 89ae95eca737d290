package io.streamtables.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import java.util.Map;

/**
 * The two encodings of the AWS protocols served here, JSON 1.1 and CBOR 1.1 (the Java SDK's Kinesis clients),
 * chosen by the request's content type, and the error body both give: {@code __type} and {@code message}, with the
 * type in {@code x-amzn-ErrorType} too.
 */
record AwsWire(ObjectMapper mapper, String contentType, String format) {

    static final String JSON_TYPE = "application/x-amz-json-1.1";
    static final String CBOR_TYPE = "application/x-amz-cbor-1.1";
    static final String ERROR_TYPE_HEADER = "x-amzn-ErrorType";

    private static final ObjectMapper CBOR = new ObjectMapper(new CBORFactory())
            .setSerializationInclusion(JsonInclude.Include.NON_NULL);

    /** The encoding of a request with this {@code Content-Type} (JSON unless it says CBOR), given the JSON mapper. */
    static AwsWire of(String requestContentType, ObjectMapper json) {
        return requestContentType != null && requestContentType.startsWith(CBOR_TYPE)
                ? new AwsWire(CBOR, CBOR_TYPE, "CBOR") : new AwsWire(json, JSON_TYPE, "JSON");
    }

    byte[] errorBody(AwsApiException e) {
        try {
            return mapper.writeValueAsBytes(Map.of("__type", e.type(), "message", e.getMessage()));
        } catch (java.io.IOException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
