package io.streamtables.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
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
        assertNull(((Command.Help) ArgumentParser.parse()).operation());
        assertNull(((Command.Help) ArgumentParser.parse("help")).operation());
        assertEquals(Operation.UPDATE_CHANNEL, ((Command.Help) ArgumentParser.parse("update-channel", "help")).operation());
        assertInstanceOf(Command.Help.class, ArgumentParser.parse("describe-channel", "--help"));
        assertInstanceOf(Command.Help.class, ArgumentParser.parse("--help"));
    }

    @Test
    void usageErrorsNameTheFlagOrCommand() {
        assertUsage("describe-channel needs --channel-arn", "describe-channel", "--region", "us-east-1");
        assertUsage("create-channel needs --channel-name and --stream-configuration-list", "create-channel");
        assertUsage("unknown option --channel-name for delete-channel: it takes --channel-arn, and the global "
                + "--region, --endpoint-url, --profile, --query, --no-sign-request, --help", "delete-channel", "--channel-name", "x");
        assertUsage("unknown option --stream-arn for list-channels", "list-channels", "--stream-arn", "x");
        assertUsage("--channel-arn is given twice", "describe-channel", "--channel-arn", "a", "--channel-arn", "b");
        assertUsage("--region is given twice", "describe-channel", "--channel-arn", "a", "--region", "x", "--region=y");
        assertUsage("--channel-arn needs a value", "describe-channel", "--channel-arn");
        assertUsage("--channel-arn needs a value", "describe-channel", "--channel-arn", "--region", "x");
        assertUsage("unknown command 'describe-stream': one of create-channel, describe-channel, list-channels, "
                + "update-channel, delete-channel", "describe-stream");
        assertUsage("no command: one of create-channel", "--region", "us-east-1");
        assertUsage("describe-channel takes no argument 'arn:x' without a flag before it", "describe-channel", "arn:x");
        assertUsage("--no-sign-request takes no value", "list-channels", "--no-sign-request=yes");
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

    private static void assertUsage(String expected, String... args) {
        UsageException e = assertThrows(UsageException.class, () -> ArgumentParser.parse(args));
        assertTrue(e.getMessage().startsWith(expected), e.getMessage());
    }
}
