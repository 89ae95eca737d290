package io.streamtables.controlplane;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.streamtables.channel.ChannelDefinition;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The members each channel operation takes, as paths ({@code A.B[].C}; a map's keys are data, not members), and the
 * members of the SDKs' models it refuses by name, with why. Every request is checked against them, so a member the
 * service would not act on is refused, never ignored; {@code ApiShapesTest} compares them with the SDKs' models.
 */
final class RequestShapes {

    /**
     * Members of the SDKs' models this service refuses, and why (docs/OPERATING.md "Differences from the managed
     * feature").
     */
    static final Map<String, String> NOT_SERVED = Map.of(
            "S3DestinationConfiguration", "this service delivers to Iceberg tables, use "
                    + "S3TablesDestinationConfiguration",
            "StreamFilter[].StreamCreationTimestamp", "streams are named by ARN only, filter by StreamARN");

    static final Map<String, Set<String>> ACCEPTED = Map.of(
            "CreateChannel", members(ChannelDefinition.class, ""),
            "UpdateChannel", union(Set.of("ChannelARN", "S3TablesDestinationConfiguration",
                    "S3TablesDestinationConfiguration.DataFreshnessInSeconds", "LoggingConfiguration"),
                    members(ChannelDefinition.LoggingConfiguration.class, "LoggingConfiguration.")),
            "DescribeChannel", Set.of("ChannelARN"),
            "DeleteChannel", Set.of("ChannelARN"),
            "ListChannels", Set.of("MaxResults", "NextToken", "StreamFilter", "StreamFilter[].StreamARN"));

    private RequestShapes() {
    }

    /**
     * @throws IllegalArgumentException naming the first member of the request the operation does not take (an
     *         operation not served here is the caller's UnknownOperationException, not checked)
     */
    static void check(String operation, JsonNode request) {
        Set<String> accepted = ACCEPTED.get(operation);
        if (accepted != null) {
            check(request, "", "", accepted, operation);
        }
    }

    private static void check(JsonNode node, String shape, String shown, Set<String> accepted, String operation) {
        node.fields().forEachRemaining(e -> {
            String path = shape + e.getKey();
            String named = shown + e.getKey();
            if (NOT_SERVED.containsKey(path)) {
                throw new IllegalArgumentException(named + " is not supported: " + NOT_SERVED.get(path));
            }
            if (!accepted.contains(path)) {
                throw new IllegalArgumentException(named + " is not a member of the " + operation
                        + " request (names are case-sensitive)");
            }
            if (e.getValue().isObject() && !path.equals("Tags")) {
                check(e.getValue(), path + ".", named + ".", accepted, operation);
            } else if (e.getValue().isArray()) {
                for (int i = 0; i < e.getValue().size(); i++) {
                    check(e.getValue().get(i), path + "[].", named + "[" + i + "].", accepted, operation);
                }
            }
        });
    }

    /** The members of a request record, from its components' {@code @JsonProperty} names. */
    static Set<String> members(Class<?> record, String prefix) {
        Set<String> out = new TreeSet<>();
        for (RecordComponent c : record.getRecordComponents()) {
            JsonProperty property = c.getAccessor().getAnnotation(JsonProperty.class);
            String path = prefix + (property != null ? property.value() : c.getName());
            out.add(path);
            Type type = c.getGenericType();
            if (type instanceof ParameterizedType list && c.getType() == java.util.List.class
                    && list.getActualTypeArguments()[0] instanceof Class<?> item && item.isRecord()) {
                out.addAll(members(item, path + "[]."));
            } else if (c.getType().isRecord()) {
                out.addAll(members(c.getType(), path + "."));
            }
        }
        return out;
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new TreeSet<>(a);
        all.addAll(b);
        return all;
    }
}
