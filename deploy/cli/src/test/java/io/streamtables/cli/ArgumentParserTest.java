package io.streamtables.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ArgumentParserTest {

    /** The seed's create-channel command, word for word after "aws". */
    @Test
    void readsTheSeedsCreateChannelCommand() throws Exception {
        Command.Call call = (Command.Call) ArgumentParser.parse("kinesis", "create-channel",
                "--region", "us-east-1",
                "--channel-name", "my-iceberg-channel",
                "--service-execution-role-arn", "arn:aws:iam::123456789012:role/delivery",
                "--stream-configuration-list", "file://stream-config.json",
                "--s3-tables-destination-configuration", "file://s3-tables-dest.json",
                "--logging-configuration", "file://logging.json",
                "--encryption-configuration", "{\"EncryptionType\": \"KMS\", \"KeyId\": \"arn:aws:kms:us-east-1:123456789012:key/k\"}");
        assertEquals(Operation.CREATE_CHANNEL, call.operation());
        Map<String, String> byMember = new LinkedHashMap<>();
        call.values().forEach((p, v) -> byMember.put(p.member(), v));
        assertEquals(Map.of(
                "ChannelName", "my-iceberg-channel",
                "ServiceExecutionRoleARN", "arn:aws:iam::123456789012:role/delivery",
                "StreamConfigurationList", "file://stream-config.json",
                "S3TablesDestinationConfiguration", "file://s3-tables-dest.json",
                "LoggingConfiguration", "file://logging.json",
                "EncryptionConfiguration", "{\"EncryptionType\": \"KMS\", \"KeyId\": \"arn:aws:kms:us-east-1:123456789012:key/k\"}"),
                byMember);
        assertEquals(new Connection.Options("us-east-1", null, null, true), call.connection());
    }

    @Test
    void takesFlagEqualsValueAndGlobalOptionsAnywhere() throws Exception {
        Command.Call call = (Command.Call) ArgumentParser.parse("--endpoint-url=http://127.0.0.1:8080", "list-channels",
                "--max-results=5", "--no-sign-request", "--profile", "local", "--next-token", "10");
        assertEquals(Operation.DESCRIBE_CHANNEL, ((Command.Call) ArgumentParser.parse("--region", "us-east-1", "kinesis",
                "describe-channel", "--channel-arn", "a")).operation());
        assertEquals(Operation.LIST_CHANNELS, call.operation());
        assertEquals(new Connection.Options(null, "http://127.0.0.1:8080", "local", false), call.connection());
        assertEquals(2, call.values().size());
    }

    @Test
    void asksForHelp() throws Exception {
        String all = ((Command.Help) ArgumentParser.parse()).usage();
        assertTrue(all.startsWith("Usage: channels "), all);
        for (Operation o : Operation.values()) {
            assertTrue(all.contains("\n  " + o.command + " "), all);
        }
        assertEquals(all, ((Command.Help) ArgumentParser.parse("help")).usage());
        assertEquals(all, ((Command.Help) ArgumentParser.parse("--help")).usage());
        // a command's help needs none of its required flags
        String update = ((Command.Help) ArgumentParser.parse("update-channel", "help")).usage();
        assertTrue(update.startsWith("Usage: channels update-channel "), update);
        assertTrue(update.contains("--channel-arn=VALUE") && update.contains("--s3-tables-destination-configuration=JSON"),
                update);
        assertTrue(((Command.Help) ArgumentParser.parse("kinesis", "update-channel", "--help")).usage()
                .startsWith("Usage: channels kinesis update-channel "));
        assertInstanceOf(Command.Help.class, ArgumentParser.parse("describe-channel", "--help"));
        assertEquals(update, ((Command.Help) ArgumentParser.parse("help", "update-channel")).usage(),
                "help COMMAND, as the AWS CLI's help takes it");
        assertTrue(((Command.Help) ArgumentParser.parse("kinesis")).usage().startsWith("Usage: channels kinesis "),
                "the service word alone: its usage");
    }

    @Test
    void usageErrorsNameTheFlagOrCommand() {
        assertUsage("Missing required option: '--channel-arn=VALUE'", "describe-channel", "describe-channel", "--region",
                "us-east-1");
        assertUsage("Missing required options: '--channel-name=VALUE', '--stream-configuration-list=JSON-LIST'",
                "create-channel", "create-channel");
        assertUsage("Unknown options: '--channel-name', 'x'", "delete-channel", "delete-channel", "--channel-arn", "a",
                "--channel-name", "x");
        assertUsage("Unknown options: '--stream-arn', 'x'", "list-channels", "list-channels", "--stream-arn", "x");
        assertUsage("option '--channel-arn' (VALUE) should be specified only once", "describe-channel",
                "describe-channel", "--channel-arn", "a", "--channel-arn", "b");
        assertUsage("--region is given twice", "describe-channel", "--region", "x", "describe-channel", "--channel-arn",
                "a", "--region=y");
        assertUsage("Missing required parameter for option '--channel-arn' (VALUE)", "describe-channel",
                "describe-channel", "--channel-arn");
        assertUsage("Expected parameter for option '--channel-arn' but found '--region'", "describe-channel",
                "describe-channel", "--channel-arn", "--region", "x");
        assertUsage("Unknown option: '--chanel-name'", "describe-channel", "describe-channel", "--channel-arn",
                "--chanel-name", "x");
        assertUsage("no command 'put-record'", null, "help", "put-record");
        assertUsage("Unmatched argument at index 0: 'describe-stream'; the commands are create-channel", null,
                "describe-stream");
        assertUsage("Unmatched argument at index 1: 'put-record'; the commands are create-channel, describe-channel, "
                + "list-channels, update-channel, delete-channel", "kinesis", "kinesis", "put-record");
        assertUsage("no command: one of create-channel", null, "--region", "us-east-1");
        assertUsage("Unmatched argument at index 3: 'arn:x'", "describe-channel", "describe-channel", "--channel-arn",
                "a", "arn:x");
        assertUsage("option '--no-sign-request' should be specified without 'yes' parameter", "list-channels",
                "list-channels", "--no-sign-request=yes");
        assertUsage("--query 'ChannelSummaries[' is not a JMESPath expression", "list-channels", "list-channels",
                "--query", "ChannelSummaries[");
    }

    /** Values are passed as written: picocli's @file expansion is off. */
    @Test
    void anAtSignIsAValue() throws Exception {
        Command.Call call = (Command.Call) ArgumentParser.parse("describe-channel", "--channel-arn", "@arn");
        assertEquals(Map.of("ChannelARN", "@arn"), Map.of(call.values().keySet().iterator().next().member(),
                call.values().values().iterator().next()));
    }

    @Test
    void flagsAreTheAwsCliNamesOfTheMembers() {
        for (Operation o : Operation.values()) {
            for (Parameter p : o.parameters) {
                String kebab = p.member().replaceAll("ARN$", "Arn").replaceAll("S3", "S3-")
                        .replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase().replace("--", "-");
                assertEquals("--" + kebab, p.flag(), o + " " + p.member());
            }
            assertFalse(o.apiName.isEmpty());
            assertTrue(Operation.named(o.command).isPresent());
        }
    }

    private static void assertUsage(String expected, String command, String... args) {
        UsageException e = assertThrows(UsageException.class, () -> ArgumentParser.parse(args));
        assertTrue(e.getMessage().startsWith(expected), e.getMessage());
        assertEquals(command, e.command(), e.getMessage());
    }
}
