package io.streamtables.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.burt.jmespath.Expression;
import io.burt.jmespath.jackson.JacksonRuntime;
import io.burt.jmespath.parser.ParseException;

/**
 * {@code --query}: a JMESPath expression over the answer, as the AWS CLI takes it (the seed's
 * {@code --query 'ChannelDescription.ChannelStatus'}, {@code ChannelSummaries[?ChannelStatus=='ACTIVE'].ChannelARN}).
 */
final class Query {

    private static final JacksonRuntime JMESPATH = new JacksonRuntime();

    private final Expression<JsonNode> expression;

    private Query(Expression<JsonNode> expression) {
        this.expression = expression;
    }

    static Query parse(String expression) throws UsageException {
        try {
            return new Query(JMESPATH.compile(expression));
        } catch (ParseException e) {
            throw new UsageException("--query '" + expression + "' is not a JMESPath expression: " + e.getMessage());
        }
    }

    JsonNode apply(JsonNode answer) {
        return expression.search(answer);
    }
}
