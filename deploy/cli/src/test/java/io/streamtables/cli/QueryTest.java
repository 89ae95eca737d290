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

    @Test
    void refusesWhatIsMoreThanAPath() {
        for (String expression : new String[] {"ChannelSummaries[*].ChannelARN", "length(ChannelSummaries)",
                "ChannelSummaries[?ChannelStatus=='ACTIVE']", "a..b", "", "a | b"}) {
            UsageException e = assertThrows(UsageException.class, () -> Query.parse(expression), expression);
            assertTrue(e.getMessage().startsWith("--query '" + expression + "': only paths like"), e.getMessage());
        }
    }
}
