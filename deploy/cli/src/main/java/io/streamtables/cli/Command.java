package io.streamtables.cli;

import java.util.Map;

/** What a command line asks for. */
sealed interface Command {

    /** Print a usage: of every command, or of the one asked about. */
    record Help(String usage) implements Command {
    }

    /**
     * Call an operation: its flags' text by parameter, how to reach the service, and what of the answer to print.
     *
     * @param query null to print the whole answer
     */
    record Call(Operation operation, Map<Parameter, String> values, Connection.Options connection, Query query)
            implements Command {
    }
}
