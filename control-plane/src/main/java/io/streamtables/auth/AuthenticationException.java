package io.streamtables.auth;

/**
 * A request that is not signed, or not signed right: the AWS error type the SDKs expect for it (such as
 * {@code InvalidSignatureException}) and its HTTP status, which the API answers with.
 */
public class AuthenticationException extends RuntimeException {

    private final String type;
    private final int status;

    public AuthenticationException(String type, int status, String message) {
        super(message, null, false, false);
        this.type = type;
        this.status = status;
    }

    /** 400, the status of every signature error but a missing one. */
    static AuthenticationException badRequest(String type, String message) {
        return new AuthenticationException(type, 400, message);
    }

    public String type() {
        return type;
    }

    public int status() {
        return status;
    }
}
