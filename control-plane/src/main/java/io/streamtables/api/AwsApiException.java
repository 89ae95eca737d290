package io.streamtables.api;

import io.streamtables.auth.AuthenticationException;

/**
 * An error in the AWS JSON protocol: the SDKs map {@code __type} to their exception class
 * (e.g. {@code EntityNotFoundException}), so the type must be one the service model declares.
 */
public class AwsApiException extends RuntimeException {

    private final String type;
    private final int status;

    public AwsApiException(String type, int status, String message) {
        super(message, null, false, false);
        this.type = type;
        this.status = status;
    }

    /** 400, the status of every client error in these APIs. */
    public static AwsApiException badRequest(String type, String message) {
        return new AwsApiException(type, 400, message);
    }

    /** A request the authenticator refused, answered with the error it named. */
    public static AwsApiException of(AuthenticationException e) {
        return new AwsApiException(e.type(), e.status(), e.getMessage());
    }

    public String type() {
        return type;
    }

    public int status() {
        return status;
    }
}
