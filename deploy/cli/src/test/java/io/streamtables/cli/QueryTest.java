package io.streamtables.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class QueryTest {

    final ObjectMapper json = new ObjectMapper();

    @Test
    void followsNamesAndIndexes() throws Exception {
        JsonNode answer = json.readTree("""
                {"ChannelDescription": {"ChannelStatus": "ACTIVE"},
                 "ChannelSummaries": [{"ChannelARN": "a", "Streams": [{"StreamARN": "s1"}, {"StreamARN": "s2"}]},
                                      {"ChannelARN": "b"}]}
                """);
        assertEquals(json.readTree("\"ACTIVE\""), Query.parse("ChannelDescription.ChannelStatus").apply(answer));
        assertEquals(json.readTree("\"b\""), Query.parse("ChannelSummaries[1].ChannelARN").apply(answer));
        assertEquals(json.readTree("\"b\""), Query.parse("ChannelSummaries[-1].ChannelARN").apply(answer));
        assertEquals(json.readTree("\"s2\""), Query.parse("ChannelSummaries[0].Streams[1].StreamARN").apply(answer));
        assertEquals(json.readTree("{\"ChannelStatus\": \"ACTIVE\"}"), Query.parse("ChannelDescription").apply(answer));
        assertTrue(Query.parse("ChannelDescription.ChannelStatusReason").apply(answer).isNull());
        assertTrue(Query.parse("ChannelSummaries[5].ChannelARN").apply(answer).isNull());
        assertTrue(Query.parse("ChannelDescription[0]").apply(answer).isNull());
    }

    /** The AWS CLI's JMESPath, whole: projections, filters and functions too. */
    @Test
    void takesWholeJmesPath() throws Exception {
        JsonNode answer = json.readTree("""
                {"ChannelSummaries": [{"ChannelARN": "a", "ChannelStatus": "ACTIVE"},
                                      {"ChannelARN": "b", "ChannelStatus": "CREATING"}]}
                """);
        assertEquals(json.readTree("[\"a\", \"b\"]"), Query.parse("ChannelSummaries[*].ChannelARN").apply(answer));
        assertEquals(json.readTree("[\"a\"]"),
                Query.parse("ChannelSummaries[?ChannelStatus=='ACTIVE'].ChannelARN").apply(answer));
        assertEquals(2, Query.parse("length(ChannelSummaries)").apply(answer).asInt());
    }

    @Test
    void refusesWhatIsNotJmesPath() {
        for (String expression : new String[] {"ChannelSummaries[", "a..b", "", "a |"}) {
            UsageException e = assertThrows(UsageException.class, () -> Query.parse(expression), expression);
            assertTrue(e.getMessage().startsWith("--query '" + expression + "' is not a JMESPath expression"),
                    e.getMessage());
        }
    }
}
