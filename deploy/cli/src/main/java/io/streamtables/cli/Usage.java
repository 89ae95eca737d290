package io.streamtables.cli;

/** The help text, from the operations' parameter tables. */
final class Usage {

    private static final String GLOBAL = """
            Global options:
              --region REGION           the signing Region; else AWS_REGION or the profile's region
              --endpoint-url URL        the service, e.g. http://127.0.0.1:8080; else AWS_ENDPOINT_URL_KINESIS,
                                        AWS_ENDPOINT_URL, else the Region's AWS Kinesis endpoint
              --profile NAME            the AWS config/credentials profile
              --no-sign-request         send unsigned requests (a local service that checks no signature)
              --query PATH              print only this part of the answer, e.g. ChannelDescription.ChannelStatus
                                        (JMESPath's plain paths: names and [N] indexes)
            Credentials come from the AWS SDK's default chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, profile, ...).
            Structure values are JSON in the API's shape, inline or file://PATH.
            Exit codes: 0 done, 2 wrong command line, 253 no region or credentials, 254 the service refused the
            request (its error type and message on stderr), 255 the service could not be reached.
            """;

    private Usage() {
    }

    /** Every command's usage, or one command's when operation is given. */
    static String of(Operation operation) {
        StringBuilder text = new StringBuilder();
        if (operation == null) {
            text.append("Usage: ").append(Cli.NAME).append(" [kinesis] COMMAND [OPTIONS]\n\nCommands:\n");
            for (Operation o : Operation.values()) {
                text.append("  ").append(line(o)).append('\n');
            }
        } else {
            text.append("Usage: ").append(Cli.NAME).append(' ').append(line(operation)).append('\n');
        }
        return text.append('\n').append(GLOBAL).toString();
    }

    private static String line(Operation operation) {
        StringBuilder line = new StringBuilder(operation.command);
        for (Parameter p : operation.parameters) {
            String value = switch (p.kind()) {
                case STRING -> "VALUE";
                case INTEGER -> "N";
                case STRUCTURE -> "JSON";
                case LIST -> "JSON-LIST";
            };
            String flag = p.flag() + " " + value;
            line.append(' ').append(p.required() ? flag : "[" + flag + "]");
        }
        return line.toString();
    }
}
