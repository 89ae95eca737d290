package io.streamtables.cli;

/** The service answered with an error: its AWS error type (e.g. InvalidArgumentException) and message. Exit 254. */
class ServiceException extends Exception {

    private final String type;
    private final int status;

    ServiceException(String type, int status, String message) {
        super(message);
        this.type = type;
        this.status = status;
    }

    String type() {
        return type;
    }

    int status() {
        return status;
    }
}
