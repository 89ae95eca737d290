package io.streamtables.cli;

/** The command line is wrong: the message names the flag or value to fix. Exit code 2. */
class UsageException extends Exception {

    UsageException(String message) {
        super(message);
    }
}
