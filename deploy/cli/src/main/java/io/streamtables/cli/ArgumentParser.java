package io.streamtables.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Reads the command line the way the AWS CLI does: {@code [kinesis] COMMAND --flag value ...} (or
 * {@code --flag=value}), global options anywhere. Values are kept as text: {@link RequestBuilder} reads them.
 */
final class ArgumentParser {

    /** The global options that take a value. */
    static final List<String> GLOBAL_OPTIONS = List.of("--region", "--endpoint-url", "--profile", "--query");
    /** The flags that take none. */
    static final List<String> SWITCHES = List.of("--no-sign-request", "--help");

    private record Flag(String name, String value) {
    }

    private ArgumentParser() {
    }

    static Command parse(String... args) throws UsageException {
        List<String> words = new ArrayList<>();
        List<Flag> flags = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String word = args[i];
            if (!word.startsWith("--")) {
                words.add(word);
                continue;
            }
            int eq = word.indexOf('=');
            String name = eq > 0 ? word.substring(0, eq) : word;
            String value = eq > 0 ? word.substring(eq + 1) : null;
            if (SWITCHES.contains(name)) {
                if (value != null) {
                    throw new UsageException(name + " takes no value");
                }
            } else if (value == null) {
                if (i + 1 >= args.length || args[i + 1].startsWith("--")) {
                    throw new UsageException(name + " needs a value");
                }
                value = args[++i];
            }
            flags.add(new Flag(name, value));
        }
        // the seed's commands start with "aws kinesis": the service word may stay
        if (!words.isEmpty() && words.get(0).equals("kinesis")) {
            words.remove(0);
        }
        if (words.isEmpty() || words.get(0).equals("help") || words.get(0).equals("-h")) {
            if (words.isEmpty() && !flags.isEmpty() && flags.stream().noneMatch(f -> f.name().equals("--help"))) {
                throw new UsageException("no command: one of " + commands());
            }
            return new Command.Help(null);
        }
        String name = words.get(0);
        Operation operation = Operation.named(name).orElseThrow(
                () -> new UsageException("unknown command '" + name + "': one of " + commands()));
        if (words.size() > 1) {
            if (words.get(1).equals("help") || words.get(1).equals("-h")) {
                return new Command.Help(operation);
            }
            throw new UsageException(operation.command + " takes no argument '" + words.get(1) + "' without a flag before it");
        }
        Map<Parameter, String> values = new LinkedHashMap<>();
        Map<String, String> global = new LinkedHashMap<>();
        for (Flag flag : flags) {
            if (flag.name().equals("--help")) {
                return new Command.Help(operation);
            }
            if (GLOBAL_OPTIONS.contains(flag.name()) || SWITCHES.contains(flag.name())) {
                if (global.putIfAbsent(flag.name(), flag.value()) != null) {
                    throw new UsageException(flag.name() + " is given twice");
                }
                continue;
            }
            Parameter parameter = operation.parameter(flag.name()).orElseThrow(() -> new UsageException("unknown option "
                    + flag.name() + " for " + operation.command + ": it takes " + flags(operation) + ", and the global "
                    + String.join(", ", GLOBAL_OPTIONS) + ", " + String.join(", ", SWITCHES)));
            if (values.putIfAbsent(parameter, flag.value()) != null) {
                throw new UsageException(flag.name() + " is given twice");
            }
        }
        List<String> missing = operation.parameters.stream().filter(p -> p.required() && !values.containsKey(p))
                .map(Parameter::flag).toList();
        if (!missing.isEmpty()) {
            throw new UsageException(operation.command + " needs " + String.join(" and ", missing));
        }
        return new Command.Call(operation, values, new Connection.Options(global.get("--region"),
                global.get("--endpoint-url"), global.get("--profile"), !global.containsKey("--no-sign-request")),
                global.containsKey("--query") ? Query.parse(global.get("--query")) : null);
    }

    static String commands() {
        return Arrays.stream(Operation.values()).map(o -> o.command).collect(Collectors.joining(", "));
    }

    static String flags(Operation operation) {
        return operation.parameters.stream().map(Parameter::flag).collect(Collectors.joining(", "));
    }
}
