package io.streamtables.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamtables.auth.Caller;

/**
 * One AWS JSON-protocol service served on {@code POST /}: requests whose {@code X-Amz-Target} is
 * {@code <targetPrefix>.<Operation>} reach {@link #handle}.
 */
public interface AwsApi {

    /** The part of {@code X-Amz-Target} before the dot, e.g. {@code AWSGlue} or {@code Kinesis_20131202}. */
    String targetPrefix();

    /** The service name requests are SigV4-signed for, e.g. {@code glue} or {@code kinesis}. */
    String signingName();

    /**
     * @param operation the part of {@code X-Amz-Target} after the dot, e.g. {@code CreateRegistry}
     * @param request the request body (JSON 1.1 or CBOR 1.1, read into the same tree)
     * @param caller who signed the request: the account whose resources it may see and change
     * @return the response body, serialized by Jackson in the request's format
     * @throws AwsApiException for an error the SDKs map to a typed exception
     */
    Object handle(String operation, JsonNode request, Caller caller);
}
