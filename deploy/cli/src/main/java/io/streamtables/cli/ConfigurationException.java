package io.streamtables.cli;

/** No region or no credentials could be found: the message says where they are looked for. Exit code 253. */
class ConfigurationException extends Exception {

    ConfigurationException(String message) {
        super(message);
    }
}
