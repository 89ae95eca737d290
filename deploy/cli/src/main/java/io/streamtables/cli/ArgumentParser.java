package io.streamtables.cli;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Reads the command line the way the AWS CLI does, with picocli: {@code [kinesis] COMMAND --flag value ...} (or
 * {@code --flag=value}), global options anywhere, {@code help} or {@code --help} at any level. The commands and
 * their flags come from {@link Operation}; values are kept as text: {@link RequestBuilder} reads them.
 */
final class ArgumentParser {

    /** One paragraph a line: picocli wraps them to the usage's width. */
    private static final String[] FOOTER = {"",
        "Credentials come from the AWS SDK's default chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, profile, ...).",
        "Structure values are JSON in the API's shape, inline or file://PATH.",
        "Exit codes: 0 done, 2 wrong command line, 253 no region or credentials, 254 the service refused the "
                + "request (its error type and message on stderr), 255 the service could not be reached."};

    private ArgumentParser() {
    }

    static Command parse(String... args) throws UsageException {
        CommandLine line = commandLine();
        ParseResult parsed;
        try {
            parsed = line.parseArgs(args);
        } catch (ParameterException e) {
            String command = e.getCommandLine().getCommandName();
            String message = e.getMessage();
            if (e instanceof UnmatchedArgumentException && e.getCommandLine().getSubcommands().size() > 1) {
                message += "; the commands are " + commands();
            }
            throw new UsageException(message, command.equals(Cli.NAME) ? null : command);
        }
        ParseResult last = parsed;
        while (last.hasSubcommand()) {
            last = last.subcommand();
        }
        CommandLine command = last.commandSpec().commandLine();
        if (last.commandSpec().name().equals("help")) { // "help" after a command, or "help COMMAND" after none
            CommandLine about = command.getParent();
            String named = last.matchedPositionalValue(0, null);
            if (named != null) {
                about = about.getSubcommands().get(named);
                if (about == null) {
                    throw new UsageException("no command '" + named + "': one of " + commands(), null);
                }
            }
            return new Command.Help(about.getUsageMessage());
        }
        Operation operation = Operation.named(last.commandSpec().name()).orElse(null);
        if (last.isUsageHelpRequested() || operation == null && last.matchedOptions().isEmpty()
                && (last == parsed || parsed.matchedOptions().isEmpty())) {
            return new Command.Help(command.getUsageMessage()); // nothing asked but the usage (or "kinesis" alone)
        }
        if (operation == null) {
            throw new UsageException("no command: one of " + commands(), null);
        }
        Map<Parameter, String> values = new LinkedHashMap<>();
        for (Parameter p : operation.parameters) {
            if (last.hasMatchedOption(p.flag())) {
                values.put(p, last.matchedOption(p.flag()).getValue());
            }
        }
        Map<String, Object> global = new LinkedHashMap<>();
        for (ParseResult level = parsed; level != null; level = level.hasSubcommand() ? level.subcommand() : null) {
            for (Global g : Global.values()) {
                if (level.hasMatchedOption(g.flag)
                        && global.put(g.flag, level.matchedOption(g.flag).getValue()) != null) {
                    throw new UsageException(g.flag + " is given twice", operation.command);
                }
            }
        }
        String query = (String) global.get(Global.QUERY.flag);
        Query compiled;
        try {
            compiled = query == null ? null : Query.parse(query);
        } catch (UsageException e) {
            throw new UsageException(e.getMessage(), operation.command);
        }
        return new Command.Call(operation, values, new Connection.Options((String) global.get(Global.REGION.flag),
                (String) global.get(Global.ENDPOINT_URL.flag), (String) global.get(Global.PROFILE.flag),
                !global.containsKey(Global.NO_SIGN_REQUEST.flag)), compiled);
    }

    /** The options every command takes, before or after its name (picocli's inherited scope). */
    private enum Global {
        REGION("--region", "REGION", "the signing Region; else AWS_REGION or the profile's region"),
        ENDPOINT_URL("--endpoint-url", "URL", "the service, e.g. http://127.0.0.1:8080; else "
                + "AWS_ENDPOINT_URL_KINESIS, AWS_ENDPOINT_URL, else the Region's AWS Kinesis endpoint"),
        PROFILE("--profile", "NAME", "the AWS config/credentials profile"),
        QUERY("--query", "JMESPATH", "print only this part of the answer (JMESPath), "
                + "e.g. ChannelDescription.ChannelStatus"),
        NO_SIGN_REQUEST("--no-sign-request", null, "send unsigned requests (a local service that checks no "
                + "signature)");

        final String flag;
        final String label;
        final String description;

        Global(String flag, String label, String description) {
            this.flag = flag;
            this.label = label;
            this.description = description;
        }

        OptionSpec spec() {
            OptionSpec.Builder option = OptionSpec.builder(flag).description(description).scopeType(ScopeType.INHERIT);
            return (label == null ? option.arity("0").type(boolean.class) : option.paramLabel(label).type(String.class))
                    .build();
        }
    }

    private static CommandLine commandLine() {
        CommandSpec top = CommandSpec.create().name(Cli.NAME);
        top.usageMessage().description("The channel operations of the Kinesis API, as the AWS CLI's commands.")
                .footer(FOOTER);
        top.addOption(OptionSpec.builder("-h", "--help").usageHelp(true).description("print this usage")
                .scopeType(ScopeType.INHERIT).build());
        for (Global g : Global.values()) {
            top.addOption(g.spec());
        }
        addOperations(top);
        // the seed's commands start with "aws kinesis": the service word may stay
        CommandSpec kinesis = CommandSpec.create();
        kinesis.usageMessage().description("the same commands, as in 'aws kinesis COMMAND'").footer(FOOTER);
        addOperations(kinesis);
        kinesis.addSubcommand("help", helpOf());
        top.addSubcommand("kinesis", kinesis);
        top.addSubcommand("help", helpOf());
        CommandLine line = new CommandLine(top);
        line.setExpandAtFiles(false); // '@' starts no argument file: values are passed as written
        line.setUnmatchedOptionsAllowedAsOptionParameters(false); // "--channel-arn --chanel-name": a typo, not an ARN
        return line;
    }

    private static void addOperations(CommandSpec parent) {
        for (Operation o : Operation.values()) {
            CommandSpec command = CommandSpec.create();
            command.usageMessage().description("Calls " + o.apiName + ".").footer(FOOTER);
            for (Parameter p : o.parameters) {
                command.addOption(OptionSpec.builder(p.flag()).paramLabel(label(p.kind())).type(String.class)
                        .required(p.required()).description(p.member() + (p.required() ? "" : " (optional)"))
                        .build());
            }
            command.addSubcommand("help", helpOf());
            parent.addSubcommand(o.command, command);
        }
    }

    /** {@code COMMAND help}, as the AWS CLI takes it: prints the usage of the command it follows. */
    private static CommandSpec helpOf() {
        CommandSpec help = CommandSpec.create().helpCommand(true); // the command's required flags may be missing
        help.usageMessage().description("print the usage of the command before it, or of the one named");
        help.addPositional(PositionalParamSpec.builder().arity("0..1").paramLabel("COMMAND").type(String.class)
                .description("a command, after none").build());
        return help;
    }

    private static String label(Parameter.Kind kind) {
        return switch (kind) {
            case STRING -> "VALUE";
            case INTEGER -> "N";
            case STRUCTURE -> "JSON";
            case LIST -> "JSON-LIST";
        };
    }

    static String commands() {
        return Arrays.stream(Operation.values()).map(o -> o.command).collect(Collectors.joining(", "));
    }
}
