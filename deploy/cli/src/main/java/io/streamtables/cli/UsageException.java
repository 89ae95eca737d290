package io.streamtables.cli;

/** The command line is wrong: the message names the flag or value to fix. Exit code 2. */
class UsageException extends Exception {

    /** The command whose usage helps, null for the list of commands. */
    private final String command;

    UsageException(String message) {
        this(message, null);
    }

    UsageException(String message, String command) {
        super(message);
        this.command = command;
    }

    String command() {
        return command;
    }
}
