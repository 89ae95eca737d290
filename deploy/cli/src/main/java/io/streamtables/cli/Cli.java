package io.streamtables.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Map;

/**
 * The command-line client: parses, builds the request, calls the service, prints its JSON answer pretty-printed
 * like the AWS CLI. Exit codes follow the AWS CLI: 0 done, 2 wrong command line, 253 no region or credentials,
 * 254 the service refused the request, 255 the service could not be reached or answered garbage.
 */
final class Cli {

    static final int OK = 0;
    static final int USAGE = 2;
    static final int CONFIGURATION = 253;
    static final int SERVICE_ERROR = 254;
    static final int FAILURE = 255;
    static final String NAME = "channels";

    private final PrintStream out;
    private final PrintStream err;
    private final Map<String, String> env;
    private final Path workingDirectory;
    // exact decimals: ChannelCreationTimestamp is epoch seconds with a fraction, printed as sent
    private final ObjectMapper json = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN);

    Cli(PrintStream out, PrintStream err, Map<String, String> env, Path workingDirectory) {
        this.out = out;
        this.err = err;
        this.env = env;
        this.workingDirectory = workingDirectory;
    }

    int run(String... args) {
        Command command;
        try {
            command = ArgumentParser.parse(args);
        } catch (UsageException e) {
            return usageError(e);
        }
        if (command instanceof Command.Help help) {
            out.print(help.usage());
            return OK;
        }
        Command.Call call = (Command.Call) command;
        Operation operation = call.operation();
        try {
            var request = new RequestBuilder(json, workingDirectory).build(call.values());
            Connection connection = Connection.resolve(call.connection(), env);
            try (ChannelApiClient client = new ChannelApiClient(connection, json)) {
                JsonNode response;
                try {
                    response = client.call(operation.apiName, request);
                } catch (JsonProcessingException e) {
                    err.println(NAME + ": the endpoint URL \"" + connection.endpoint() + "\" answered with something "
                            + "that is not JSON: is it the channel API? (" + e.getOriginalMessage() + ")");
                    return FAILURE;
                } catch (IOException e) {
                    err.println("Could not reach the endpoint URL \"" + connection.endpoint() + "\": " + e.getMessage());
                    return FAILURE;
                }
                if (call.query() != null) {
                    try {
                        response = call.query().apply(response);
                    } catch (RuntimeException e) { // JMESPath's own: a function given the wrong type
                        return usageError(new UsageException("--query cannot be applied to the answer: "
                                + e.getMessage(), operation.command));
                    }
                } else if (response.isEmpty()) {
                    return OK; // like the AWS CLI: an empty answer (DeleteChannel) prints nothing
                }
                out.println(json.writer(prettyPrinter()).writeValueAsString(response));
                return OK;
            }
        } catch (UsageException e) {
            return usageError(new UsageException(e.getMessage(), operation.command));
        } catch (ConfigurationException e) {
            err.println(NAME + ": " + e.getMessage());
            return CONFIGURATION;
        } catch (ServiceException e) {
            err.println();
            err.println("An error occurred (" + e.type() + ") when calling the " + operation.apiName + " operation: "
                    + e.getMessage());
            return SERVICE_ERROR;
        } catch (IOException | RuntimeException e) {
            err.println(NAME + ": " + operation.command + " failed: " + e);
            return FAILURE;
        }
    }

    private int usageError(UsageException e) {
        err.println(NAME + ": error: " + e.getMessage());
        err.println("Run '" + NAME + (e.command() == null ? "" : " " + e.command()) + " help' for the usage.");
        return USAGE;
    }

    /** The AWS CLI's layout: four spaces, "key": value. */
    private static DefaultPrettyPrinter prettyPrinter() {
        DefaultIndenter indenter = new DefaultIndenter("    ", "\n");
        return new DefaultPrettyPrinter(Separators.createDefaultInstance()
                .withObjectFieldValueSpacing(Separators.Spacing.AFTER))
                .withObjectIndenter(indenter).withArrayIndenter(indenter);
    }
}
