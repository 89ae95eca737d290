package io.streamtables.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code --query} for the plain paths of JMESPath, enough for the seed's
 * {@code --query 'ChannelDescription.ChannelStatus'}: names and indexes ({@code ChannelSummaries[0].ChannelARN},
 * {@code [-1]} from the end). What is not on the path is null, as in JMESPath.
 */
final class Query {

    private static final Pattern SEGMENT = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)((?:\\[-?\\d+])*)");
    private static final Pattern INDEX = Pattern.compile("\\[(-?\\d+)]");

    /** A member name or an array index. */
    private record Step(String name, int index) {
    }

    private final List<Step> steps;

    private Query(List<Step> steps) {
        this.steps = steps;
    }

    static Query parse(String expression) throws UsageException {
        List<Step> steps = new ArrayList<>();
        for (String segment : expression.split("\\.", -1)) {
            Matcher m = SEGMENT.matcher(segment);
            if (!m.matches()) {
                throw new UsageException("--query '" + expression + "': only paths like ChannelDescription.ChannelStatus "
                        + "or ChannelSummaries[0].ChannelARN are supported (no wildcards, filters or functions: pipe "
                        + "the JSON to jq for those)");
            }
            steps.add(new Step(m.group(1), 0));
            Matcher index = INDEX.matcher(m.group(2));
            while (index.find()) {
                steps.add(new Step(null, Integer.parseInt(index.group(1))));
            }
        }
        return new Query(steps);
    }

    JsonNode apply(JsonNode node) {
        for (Step step : steps) {
            if (step.name() != null) {
                node = node.path(step.name());
            } else {
                node = node.isArray() ? node.path(step.index() < 0 ? node.size() + step.index() : step.index())
                        : NullNode.getInstance();
            }
            if (node.isMissingNode() || node.isNull()) {
                return NullNode.getInstance();
            }
        }
        return node;
    }
}
