package io.streamtables.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RequestBuilderTest {

    final ObjectMapper json = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    @TempDir
    Path dir;

    @Test
    void filesAndInlineJsonBecomeTheRequestMembers() throws Exception {
        Files.writeString(dir.resolve("stream-config.json"), "[{\n\"StreamARN\": \"arn:aws:kinesis:us-east-1:123456789012:stream/s\"\n}]\n");
        Files.writeString(dir.resolve("logging.json"), "{\"CloudWatchLogs\": {\"Enabled\": true}}");
        var request = new RequestBuilder(json, dir).build(values(Operation.CREATE_CHANNEL,
                "--channel-name", "c",
                "--stream-configuration-list", "file://stream-config.json",
                "--logging-configuration", "file://" + dir.resolve("logging.json"),
                "--s3-tables-destination-configuration", "{\"DataFreshnessInSeconds\": 600}"));
        assertEquals(json.readTree("""
                {"ChannelName": "c",
                 "StreamConfigurationList": [{"StreamARN": "arn:aws:kinesis:us-east-1:123456789012:stream/s"}],
                 "LoggingConfiguration": {"CloudWatchLogs": {"Enabled": true}},
                 "S3TablesDestinationConfiguration": {"DataFreshnessInSeconds": 600}}
                """), request);
    }

    /** The seed passes --stream-filter as one object; the API's member is a list. */
    @Test
    void aLoneObjectForAListIsAListOfOne() throws Exception {
        var request = new RequestBuilder(json, dir).build(values(Operation.LIST_CHANNELS,
                "--stream-filter", "{\"StreamARN\": \"arn:s\"}", "--max-results", "7", "--next-token", "100"));
        assertEquals(json.readTree("{\"StreamFilter\": [{\"StreamARN\": \"arn:s\"}], \"MaxResults\": 7, \"NextToken\": \"100\"}"),
                request);
    }

    @Test
    void badValuesNameTheFlagAndTheProblem() throws Exception {
        Files.writeString(dir.resolve("broken.json"), "{\n\"DataFreshnessInSeconds\": 300,\n\"S3TablesConfigurationList\": [\n}");
        assertBad("cannot read --s3-tables-destination-configuration: invalid JSON at line 4",
                Operation.UPDATE_CHANNEL, "--channel-arn", "a", "--s3-tables-destination-configuration", "file://broken.json");
        assertBad("cannot read --logging-configuration: unable to load file://nope.json: "
                + dir.resolve("nope.json").toAbsolutePath() + " does not exist",
                Operation.UPDATE_CHANNEL, "--channel-arn", "a", "--logging-configuration", "file://nope.json");
        assertBad("cannot read --logging-configuration: expected a JSON object {...}, got an array",
                Operation.UPDATE_CHANNEL, "--channel-arn", "a", "--logging-configuration", "[]");
        assertBad("cannot read --stream-configuration-list: expected a JSON array [...], got string \"arn:s\"",
                Operation.CREATE_CHANNEL, "--channel-name", "c", "--stream-configuration-list", "\"arn:s\"");
        assertBad("cannot read --stream-configuration-list: invalid JSON",
                Operation.CREATE_CHANNEL, "--channel-name", "c", "--stream-configuration-list", "[] []");
        assertBad("cannot read --max-results: 'ten' is not an integer", Operation.LIST_CHANNELS, "--max-results", "ten");
        assertBad("cannot read --tags: the value is empty, expected JSON",
                Operation.CREATE_CHANNEL, "--channel-name", "c", "--tags", " ");
    }

    private void assertBad(String expected, Operation operation, String... flagsAndValues) {
        UsageException e = assertThrows(UsageException.class,
                () -> new RequestBuilder(json, dir).build(values(operation, flagsAndValues)));
        assertTrue(e.getMessage().startsWith(expected), e.getMessage());
    }

    private static Map<Parameter, String> values(Operation operation, String... flagsAndValues) {
        Map<Parameter, String> values = new LinkedHashMap<>();
        for (int i = 0; i < flagsAndValues.length; i += 2) {
            values.put(operation.parameter(flagsAndValues[i]).orElseThrow(), flagsAndValues[i + 1]);
        }
        return values;
    }
}
