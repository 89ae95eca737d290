package io.streamtables.controlplane;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.streamtables.api.AwsApi;
import io.streamtables.api.AwsApiException;
import io.streamtables.auth.Caller;
import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelDefinition;
import io.streamtables.channel.ChannelException;
import io.streamtables.channel.ChannelRegistry;
import io.streamtables.config.AuthConfig;
import io.streamtables.schema.ChannelSchemas;
import io.streamtables.schema.SchemaSource;
import jakarta.enterprise.context.ApplicationScoped;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import org.jboss.logging.Logger;

/**
 * The channel control plane on the Kinesis wire protocol ({@code Kinesis_20131202.CreateChannel}, ...), so the
 * official AWS SDK Kinesis client and tools built on it manage channels by pointing their endpoint here.
 */
@ApplicationScoped
public class ChannelApi implements AwsApi {

    private static final Pattern CHANNEL_ARN = Pattern.compile("arn:aws[a-z-]*:kinesis:[a-z0-9-]+:\\d{12}:channel/[a-zA-Z0-9_.-]{1,128}");

    private static final Logger LOG = Logger.getLogger(ChannelApi.class);

    private final ChannelRegistry channels;
    private final ChannelSchemas schemas;
    private final ObjectMapper json;
    private final boolean crossAccountDestinations;
    private final AccountDestinations destinations;

    public ChannelApi(ChannelRegistry channels, ChannelSchemas schemas, ObjectMapper json, AuthConfig auth,
            AccountDestinations destinations) {
        this.channels = channels;
        this.schemas = schemas;
        this.json = json;
        this.crossAccountDestinations = auth.crossAccountDestinations();
        this.destinations = destinations;
    }

    @Override
    public String targetPrefix() {
        return "Kinesis_20131202";
    }

    @Override
    public String signingName() {
        return "kinesis";
    }

    @Override
    public Object handle(String operation, JsonNode request, Caller caller) {
        try {
            if (!operation.equals("UpdateChannel")) { // its own check first: it says what can be updated
                RequestShapes.check(operation, request);
            }
            return switch (operation) {
                case "CreateChannel" -> create(request, caller);
                case "DescribeChannel" -> json.createObjectNode().set("ChannelDescription",
                        description(entry(channelArn(request), caller)));
                case "ListChannels" -> list(request, caller);
                case "UpdateChannel" -> update(request, caller);
                case "DeleteChannel" -> {
                    channels.delete(entry(channelArn(request), caller).channel().arn());
                    yield json.createObjectNode();
                }
                default -> throw new AwsApiException("UnknownOperationException", 400,
                        "Kinesis_20131202." + operation + " is not served here: only the channel operations are");
            };
        } catch (ChannelException e) {
            throw new AwsApiException(switch (e.kind()) {
                case NOT_FOUND -> "ResourceNotFoundException";
                case IN_USE -> "ResourceInUseException";
                case LIMIT_EXCEEDED -> "LimitExceededException";
                case INVALID_ARGUMENT -> "InvalidArgumentException";
            }, 400, e.getMessage());
        } catch (IllegalArgumentException e) {
            throw AwsApiException.badRequest("InvalidArgumentException", e.getMessage());
        }
    }

    private JsonNode create(JsonNode request, Caller caller) {
        if ("NONE".equals(request.path("EncryptionConfiguration").path("EncryptionType").asText())) {
            // the channels file takes NONE (SSE-S3); the SDKs' ChannelEncryptionType has KMS only
            throw new IllegalArgumentException("EncryptionConfiguration.EncryptionType must be KMS (with a KeyId): "
                    + "omit EncryptionConfiguration for SSE-S3, the default");
        }
        ChannelDefinition d = definition(request);
        Channel channel = channels.validate(d, caller.accountId());
        checkOwnResources(channel, caller);
        refuseIfAny(destinations.problem(channel));
        checkSchema(channel);
        channels.create(d, caller.accountId());
        return json.createObjectNode().set("ChannelDescription", description(entry(channel.arn(), caller)));
    }

    /**
     * A caller delivers from and into what its own account owns, unless the operator allows other accounts'
     * destinations. Its role is always its own: every role the service may assume trusts the service, so another
     * account's role would let the caller act as that account.
     */
    private void checkOwnResources(Channel channel, Caller caller) {
        channel.resourceAccounts().forEach((field, account) -> {
            boolean role = field.equals(Channel.ROLE_FIELD);
            if (!caller.owns(account) && (role || !crossAccountDestinations)) {
                throw new AwsApiException("AccessDeniedException", 400, field + " is in account " + account
                        + ", not the caller's account " + caller.accountId() + (role ? ": a channel's role must be "
                        + "of its own account" : ": a channel may name only its own account's resources (the "
                        + "operator allows others with delivery.auth.cross-account-destinations=true)"));
            }
        });
    }

    private static void refuseIfAny(String problem) {
        if (problem != null) {
            throw new AwsApiException("AccessDeniedException", 400, problem);
        }
    }

    /**
     * SPEC C3: a schema the table cannot take, or whose partition field is not a required date-time, is refused
     * here; when the registry does not answer, the CREATING checks try again and fail the channel if need be.
     */
    private void checkSchema(Channel channel) {
        try {
            schemas.resolve(channel);
        } catch (SchemaSource.RegistryUnavailableException e) {
            LOG.warnf("The schema registry did not answer while creating %s; checking its schema later: %s",
                    channel.arn(), e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(ChannelSchemas.problem(channel, e));
        }
    }

    private JsonNode update(JsonNode request, Caller caller) {
        JsonNode dest = request.path("S3TablesDestinationConfiguration");
        dest.fieldNames().forEachRemaining(f -> {
            if (!f.equals("DataFreshnessInSeconds")) {
                throw new IllegalArgumentException("S3TablesDestinationConfiguration." + f
                        + " cannot be updated: only DataFreshnessInSeconds and LoggingConfiguration can (delete and "
                        + "recreate the channel to change anything else)");
            }
        });
        RequestShapes.check("UpdateChannel", request);
        ChannelRegistry.Entry e = entry(channelArn(request), caller);
        Integer freshness = dest.has("DataFreshnessInSeconds") ? dest.get("DataFreshnessInSeconds").asInt() : null;
        ChannelDefinition.LoggingConfiguration logging = request.has("LoggingConfiguration")
                ? read(request.get("LoggingConfiguration"), ChannelDefinition.LoggingConfiguration.class, "LoggingConfiguration")
                : null;
        refuseIfAny(destinations.problem(e.channel().account(), logging));
        return json.createObjectNode().set("ChannelDescription",
                description(channels.update(e.channel().arn(), freshness, logging)));
    }

    private JsonNode list(JsonNode request, Caller caller) {
        Set<String> streams = new HashSet<>(); // channels of any of these streams; none: every channel
        JsonNode filters = request.path("StreamFilter");
        for (int i = 0; i < filters.size(); i++) {
            String arn = filters.get(i).path("StreamARN").asText("");
            if (arn.isEmpty()) {
                throw new IllegalArgumentException("StreamFilter[" + i + "].StreamARN is required");
            }
            streams.add(arn);
        }
        int max = request.path("MaxResults").asInt(100);
        if (max < 1 || max > 100) {
            throw new IllegalArgumentException("MaxResults must be between 1 and 100");
        }
        int from = 0;
        if (request.hasNonNull("NextToken")) {
            try {
                from = Integer.parseInt(request.get("NextToken").asText());
            } catch (NumberFormatException e) {
                from = -1;
            }
            if (from < 0) {
                throw new IllegalArgumentException("NextToken is not a token this service issued");
            }
        }
        List<ChannelRegistry.Entry> matching = channels.all().stream()
                .filter(e -> caller.owns(e.channel().account()))
                .filter(e -> streams.isEmpty() || streams.contains(e.channel().streamArn().toString())).toList();
        ObjectNode out = json.createObjectNode();
        ArrayNode summaries = out.putArray("ChannelSummaries");
        long readEverywhere = channels.readEverywhere();
        for (int i = from; i < Math.min(matching.size(), from + max); i++) {
            summaries.add(summary(matching.get(i), readEverywhere));
        }
        if (from + max < matching.size()) {
            out.put("NextToken", Integer.toString(from + max));
        }
        return out;
    }

    private ChannelDefinition definition(JsonNode request) {
        return read(request, ChannelDefinition.class, null);
    }

    private <T> T read(JsonNode node, Class<T> type, String field) {
        try {
            // strict at every level: a misspelt member (StreamArn for StreamARN) is named, not ignored
            return json.readerFor(type).with(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES).treeToValue(node, type);
        } catch (UnrecognizedPropertyException e) {
            String path = e.getPath().stream()
                    .map(r -> r.getFieldName() != null ? "." + r.getFieldName() : "[" + r.getIndex() + "]")
                    .collect(java.util.stream.Collectors.joining()).replaceFirst("^\\.", "");
            throw new IllegalArgumentException((field == null ? "" : field + ".") + path
                    + " is not a member of this request (names are case-sensitive)");
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("the request does not have the CreateChannel shape at "
                    + (field == null ? "" : field) + ": " + e.getOriginalMessage());
        }
    }

    private static String channelArn(JsonNode request) {
        String arn = request.path("ChannelARN").asText(null);
        if (arn == null || !CHANNEL_ARN.matcher(arn).matches()) {
            throw new IllegalArgumentException("ChannelARN must look like arn:aws:kinesis:REGION:ACCOUNT:channel/NAME");
        }
        return arn;
    }

    /** Another account's channel is not found, as AWS answers: whether it exists is not the caller's business. */
    private ChannelRegistry.Entry entry(String arn, Caller caller) {
        return channels.get(arn).filter(e -> caller.owns(e.channel().account()))
                .orElseThrow(() -> new ChannelException(ChannelException.Kind.NOT_FOUND, "channel " + arn + " not found"));
    }

    private ObjectNode summary(ChannelRegistry.Entry e, long readEverywhere) {
        ObjectNode s = header(e, readEverywhere);
        s.put("ChannelDestinationType", "S3_TABLES");
        s.putArray("Streams").addObject().put("StreamARN", e.channel().streamArn().toString());
        return s;
    }

    private ObjectNode description(ChannelRegistry.Entry e) {
        ChannelDefinition d = e.channel().definition();
        ObjectNode out = header(e, channels.readEverywhere());
        if (d.serviceExecutionRoleArn() != null) {
            out.put("ServiceExecutionRoleARN", d.serviceExecutionRoleArn());
        }
        out.set("StreamConfigurationList", json.valueToTree(d.streamConfigurationList()));
        ObjectNode dest = json.valueToTree(d.destination());
        dest.put("DataFreshnessInSeconds", e.channel().freshnessSeconds());
        out.set("S3TablesDestinationConfiguration", dest);
        if (e.channel().kmsKeyArn() != null) { // SSE-S3 (a channels file's NONE too) is answered as the SDKs know it
            out.set("EncryptionConfiguration", json.valueToTree(d.encryptionConfiguration()));
        }
        if (d.loggingConfiguration() != null) {
            out.set("LoggingConfiguration", json.valueToTree(d.loggingConfiguration()));
        }
        return out;
    }

    private ObjectNode header(ChannelRegistry.Entry e, long readEverywhere) {
        ObjectNode out = json.createObjectNode();
        out.put("ChannelName", e.channel().name());
        out.put("ChannelARN", e.channel().arn());
        out.put("ChannelId", UUID.nameUUIDFromBytes(e.channel().arn().getBytes(StandardCharsets.UTF_8)).toString());
        ApiStatus status = ApiStatus.of(e, readEverywhere);
        out.put("ChannelStatus", status.status());
        if (status.reason() != null) {
            out.put("ChannelStatusReason", status.reason());
        }
        // AWS JSON protocol timestamps are epoch seconds
        out.put("ChannelCreationTimestamp", e.createdAt().toEpochMilli() / 1000.0);
        return out;
    }
}
