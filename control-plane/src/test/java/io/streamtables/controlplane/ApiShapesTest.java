package io.streamtables.controlplane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.SdkField;
import software.amazon.awssdk.core.SdkPojo;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.traits.ListTrait;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.CreateChannelResponse;
import software.amazon.awssdk.services.kinesis.model.DescribeChannelResponse;
import software.amazon.awssdk.services.kinesis.model.ListChannelsResponse;
import software.amazon.awssdk.services.kinesis.model.UpdateChannelResponse;

/**
 * Issue 37: the channel API's answers, member by member, against the Java SDK's model of them. Every member we answer
 * is one the SDK reads, and every member of the model we do not answer is in {@link #NOT_ANSWERED} with the reason:
 * the next SDK release's new members fail this test by name. The answers are the raw JSON the SDK received.
 */
@QuarkusTest
class ApiShapesTest {

    /** Members of the SDK's model this service never answers, and why (README "Differences"). */
    static final Map<String, String> NOT_ANSWERED = Map.of(
            "ChannelDescription.S3DestinationConfiguration", "plain-S3 delivery is not served: CreateChannel refuses it",
            "ChannelDescription.StreamConfigurationList[].StreamCreationTimestamp",
            "streams are named by ARN only: their creation time is not recorded",
            "ChannelSummaries[].Streams[].StreamCreationTimestamp",
            "streams are named by ARN only: their creation time is not recorded");

    @TestHTTPResource("/")
    URL url;

    @Test
    void everyMemberAnsweredIsInTheSdksModelAndEveryOtherIsListed() throws Exception {
        Captured captured = new Captured();
        String name = ChannelApiTest.unique("shapes");
        try (KinesisClient api = client(captured)) {
            // a channel with everything set: its encryption, its logging, a stream that does not exist (FAILED, so
            // it has a reason)
            String arn = api.createChannel(ChannelApiTest.channel(name, ChannelApiTest.unique("no-stream"), "ZSTD", 60)
                    .andThen(r -> r.encryptionConfiguration(e -> e.encryptionType("KMS")
                            .keyId("arn:aws:kms:us-east-1:000000000000:key/1234abcd-12ab-34cd-56ef-1234567890ab"))
                            .tags(Map.of("team", "shapes")))).channelDescription().channelARN();
            api.createChannel(ChannelApiTest.channel(name + "-2", ChannelApiTest.unique("no-stream"), "ZSTD", 60));
            long deadline = System.currentTimeMillis() + 30_000;
            while (api.describeChannel(r -> r.channelARN(arn)).channelDescription().channelStatusReason() == null
                    && System.currentTimeMillis() < deadline) {
                Thread.sleep(100);
            }
            api.updateChannel(r -> r.channelARN(arn).loggingConfiguration(l -> l.cloudWatchLogs(c -> c.enabled(true)
                    .logGroupName("/shapes").logStreamName("s"))));
            api.listChannels(r -> r.maxResults(1)); // with a NextToken
            captured.clear(); // the answers above, asked again now that the channel has settled
            api.createChannel(ChannelApiTest.channel(name + "-3", ChannelApiTest.unique("no-stream"), "ZSTD", 60));
            Set<String> create = captured.members();
            captured.clear();
            api.describeChannel(r -> r.channelARN(arn));
            Set<String> describe = captured.members();
            assertTrue(describe.contains("ChannelDescription.ChannelStatusReason"), describe.toString());
            captured.clear();
            api.updateChannel(r -> r.channelARN(arn).s3TablesDestinationConfiguration(d -> d.dataFreshnessInSeconds(90)));
            Set<String> update = captured.members();
            captured.clear();
            api.listChannels(r -> r.maxResults(1));
            Set<String> list = captured.members();
            api.listChannels(r -> { });
            list.addAll(captured.members());

            // three operations answer a ChannelDescription: what one leaves out (a reason while CREATING, say) another
            // answers, and each is compared with all the members any of them answered
            Set<String> descriptions = new TreeSet<>(create);
            descriptions.addAll(describe);
            descriptions.addAll(update);
            compare("CreateChannel", CreateChannelResponse.builder(), descriptions);
            compare("DescribeChannel", DescribeChannelResponse.builder(), descriptions);
            compare("UpdateChannel", UpdateChannelResponse.builder(), descriptions);
            compare("ListChannels", ListChannelsResponse.builder(), list);
        }
    }

    private static void compare(String operation, SdkPojo model, Set<String> answered) {
        Set<String> known = new TreeSet<>();
        members(model.sdkFields(), "", known);
        Set<String> unknown = new TreeSet<>(answered);
        unknown.removeAll(known);
        assertEquals(Set.of(), unknown, operation + " answers members the SDK's model does not have");
        Set<String> missing = new TreeSet<>(known);
        missing.removeAll(answered);
        missing.removeIf(m -> NOT_ANSWERED.keySet().stream().anyMatch(n -> m.equals(n) || m.startsWith(n + ".")));
        assertEquals(Set.of(), missing, operation + ": members of the SDK's model neither answered nor listed in "
                + "NOT_ANSWERED");
    }

    /** The members of a model shape, as paths ({@code A.B[].C}). */
    private static void members(List<SdkField<?>> fields, String prefix, Set<String> out) {
        for (SdkField<?> field : fields) {
            String path = prefix + field.locationName();
            out.add(path);
            SdkPojo nested = pojo(field);
            if (nested != null) {
                members(nested.sdkFields(), path + ".", out);
            }
            ListTrait list = field.getTrait(ListTrait.class);
            if (list != null) {
                SdkPojo item = pojo(list.memberFieldInfo());
                if (item != null) {
                    members(item.sdkFields(), path + "[].", out);
                }
            }
        }
    }

    private static SdkPojo pojo(SdkField<?> field) {
        Object built = field.constructor() == null ? null : field.constructor().get();
        return built instanceof SdkPojo pojo ? pojo : null;
    }

    /** The members of a JSON answer, as paths ({@code A.B[].C}); maps' keys are data, not members. */
    private static void members(JsonNode node, String prefix, Set<String> out) {
        node.fields().forEachRemaining(e -> {
            String path = prefix + e.getKey();
            out.add(path);
            if (e.getValue().isObject() && !e.getKey().equals("Tags")) {
                members(e.getValue(), path + ".", out);
            } else if (e.getValue().isArray()) {
                e.getValue().forEach(item -> {
                    if (item.isObject()) {
                        members(item, path + "[].", out);
                    }
                });
            }
        });
    }

    private KinesisClient client(Captured captured) throws Exception {
        System.setProperty("aws.cborEnabled", "false"); // JSON answers, which the test reads as they came
        try {
            return KinesisClient.builder().endpointOverride(url.toURI()).region(Region.US_EAST_1)
                    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                    .httpClientBuilder(UrlConnectionHttpClient.builder())
                    .overrideConfiguration(o -> o.addExecutionInterceptor(captured)).build();
        } finally {
            System.clearProperty("aws.cborEnabled");
        }
    }

    /** The raw bodies of the answers, handed on unchanged to the SDK. */
    static final class Captured implements ExecutionInterceptor {
        private static final ObjectMapper JSON = new ObjectMapper();
        private final List<JsonNode> bodies = new ArrayList<>();

        @Override
        public Optional<InputStream> modifyHttpResponseContent(Context.ModifyHttpResponse context,
                ExecutionAttributes attributes) {
            byte[] body;
            try (InputStream in = context.responseBody().orElse(InputStream.nullInputStream())) {
                body = in.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            try {
                synchronized (bodies) {
                    bodies.add(JSON.readTree(body.length == 0 ? "{}".getBytes() : body));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return Optional.of(new ByteArrayInputStream(body));
        }

        Set<String> members() {
            Set<String> out = new TreeSet<>();
            synchronized (bodies) {
                bodies.forEach(b -> ApiShapesTest.members(b, "", out));
            }
            return out;
        }

        void clear() {
            synchronized (bodies) {
                bodies.clear();
            }
        }
    }
}
