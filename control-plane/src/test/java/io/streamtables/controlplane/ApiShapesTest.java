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
import software.amazon.awssdk.services.kinesis.model.InvalidArgumentException;

/**
 * The channel API, member by member, against three models of it: the Java SDK's the build uses, the newest
 * Java SDK's the registry serves ({@code newest.awssdk.version}) and the JavaScript SDK's ({@code
 * scripts/clients/members.cjs}). Every member we answer is one each model reads, and every member of a model we do
 * not answer is in {@link #NOT_ANSWERED} with the reason; every request member of a model is one we take or one we
 * refuse by name ({@link RequestShapes}). The next SDK release's new members fail this test by name. The answers
 * are the raw JSON the SDK received.
 */
@QuarkusTest
class ApiShapesTest {

    /** Members of the SDK's model this service never answers, and why (docs/OPERATING.md "Differences"). */
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
            for (Model model : models()) {
                compare(model, "CreateChannel", descriptions);
                compare(model, "DescribeChannel", descriptions);
                compare(model, "UpdateChannel", descriptions);
                compare(model, "ListChannels", list);
            }
        }
    }

    private static void compare(Model model, String operation, Set<String> answered) {
        Set<String> known = model.outputs().get(operation);
        Set<String> unknown = new TreeSet<>(answered);
        unknown.removeAll(known);
        assertEquals(Set.of(), unknown, operation + " answers members " + model.name() + " does not have");
        Set<String> missing = new TreeSet<>(known);
        missing.removeAll(answered);
        missing.removeIf(m -> listed(NOT_ANSWERED.keySet(), m));
        assertEquals(Set.of(), missing, operation + ": members of " + model.name() + " neither answered nor listed "
                + "in NOT_ANSWERED");
    }

    @Test
    void everyRequestMemberOfTheModelsIsTakenOrRefusedByName() throws Exception {
        for (Model model : models()) {
            for (String operation : OPERATIONS) {
                Set<String> taken = RequestShapes.ACCEPTED.get(operation);
                Set<String> missing = new TreeSet<>(model.inputs().get(operation));
                missing.removeAll(taken);
                missing.removeIf(m -> listed(RequestShapes.NOT_SERVED.keySet(), m));
                assertEquals(Set.of(), missing, operation + ": request members of " + model.name() + " neither taken "
                        + "nor refused by name (RequestShapes)");
                Set<String> extra = new TreeSet<>(taken);
                extra.removeAll(model.inputs().get(operation));
                assertEquals(Set.of(), extra, operation + " takes members " + model.name() + " cannot send");
            }
        }
        // what is not served is refused naming the member, through the SDK
        String stream = "arn:aws:kinesis:us-east-1:000000000000:stream/" + ChannelApiTest.unique("s");
        try (KinesisClient api = client(new Captured())) {
            ChannelApiTest.assertRefused(InvalidArgumentException.class, "S3DestinationConfiguration is not supported",
                    () -> api.createChannel(ChannelApiTest.channel(ChannelApiTest.unique("s3"), "s", "ZSTD", 60)
                            .andThen(r -> r.s3DestinationConfiguration(d -> d.dataFreshnessInSeconds(300)))));
            String arn = api.createChannel(ChannelApiTest.channel(ChannelApiTest.unique("filter"),
                    stream.substring(stream.indexOf('/') + 1), "ZSTD", 60)).channelDescription().channelARN();
            ChannelApiTest.assertRefused(InvalidArgumentException.class, "S3DestinationConfiguration is not supported",
                    () -> api.updateChannel(r -> r.channelARN(arn).s3DestinationConfiguration(d -> d
                            .dataFreshnessInSeconds(300))));
            ChannelApiTest.assertRefused(InvalidArgumentException.class,
                    "StreamFilter[0].StreamCreationTimestamp is not supported",
                    () -> api.listChannels(r -> r.streamFilter(f -> f.streamARN(stream)
                            .streamCreationTimestamp(java.time.Instant.now()))));
            ChannelApiTest.assertRefused(InvalidArgumentException.class, "StreamFilter[0].StreamARN is required",
                    () -> api.listChannels(r -> r.streamFilter(f -> f.streamCreationTimestamp(null))));
            // several filters: the channels of any of their streams
            assertEquals(List.of(arn), api.listChannels(r -> r.streamFilter(f -> f.streamARN(stream),
                    f -> f.streamARN(stream + "-other"))).channelSummaries().stream()
                    .map(software.amazon.awssdk.services.kinesis.model.ChannelSummary::channelARN).toList());
        }
    }

    /** A member, or one inside a member, of the list. */
    private static boolean listed(Set<String> list, String member) {
        return list.stream().anyMatch(n -> member.equals(n) || member.startsWith(n + ".")
                || member.startsWith(n + "[]."));
    }

    static final List<String> OPERATIONS = List.of("CreateChannel", "DescribeChannel", "ListChannels",
            "UpdateChannel", "DeleteChannel");

    /** A model of the channel operations: each one's request and answer members, as paths. */
    record Model(String name, Map<String, Set<String>> inputs, Map<String, Set<String>> outputs) {
    }

    static List<Model> models() throws Exception {
        return List.of(javaModel("the Java SDK's model (the build's)", ApiShapesTest.class.getClassLoader()),
                javaModel("the newest Java SDK's model (target/newest-sdk)", newestSdk()), javaScriptModel());
    }

    private static Model javaModel(String name, ClassLoader loader) throws Exception {
        Map<String, Set<String>> inputs = new java.util.HashMap<>();
        Map<String, Set<String>> outputs = new java.util.HashMap<>();
        for (String operation : OPERATIONS) {
            inputs.put(operation, members(loader, operation + "Request"));
            outputs.put(operation, members(loader, operation + "Response"));
        }
        return new Model(name, inputs, outputs);
    }

    private static Set<String> members(ClassLoader loader, String shape) throws Exception {
        Class<?> type = Class.forName("software.amazon.awssdk.services.kinesis.model." + shape, true, loader);
        SdkPojo builder = (SdkPojo) type.getMethod("builder").invoke(null);
        Set<String> out = new TreeSet<>();
        members(builder.sdkFields(), "", out);
        return out;
    }

    /** The Kinesis model classes of the newest SDK's jar, the SDK's core from the build (child first for them). */
    private static ClassLoader newestSdk() throws Exception {
        java.nio.file.Path jar = java.nio.file.Path.of("target/newest-sdk/kinesis-newest.jar");
        assertTrue(java.nio.file.Files.exists(jar), jar + " is copied by the build (generate-test-resources)");
        return new java.net.URLClassLoader(new URL[] {jar.toUri().toURL()}, ApiShapesTest.class.getClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (!name.startsWith("software.amazon.awssdk.services.kinesis.")) {
                    return super.loadClass(name, resolve);
                }
                synchronized (getClassLoadingLock(name)) {
                    Class<?> loaded = findLoadedClass(name);
                    return loaded != null ? loaded : findClass(name);
                }
            }
        };
    }

    /** The JavaScript SDK's model, as scripts/clients/members.cjs reads it from the package install.sh installed. */
    private static Model javaScriptModel() throws Exception {
        Process node = new ProcessBuilder("node", "../scripts/clients/members.cjs").redirectErrorStream(true).start();
        String out = new String(node.getInputStream().readAllBytes());
        assertEquals(0, node.waitFor(), "scripts/clients/members.cjs (run scripts/clients/install.sh first): " + out);
        JsonNode shapes = new ObjectMapper().readTree(out);
        Map<String, Set<String>> inputs = new java.util.HashMap<>();
        Map<String, Set<String>> outputs = new java.util.HashMap<>();
        for (String operation : OPERATIONS) {
            inputs.put(operation, strings(shapes.path(operation).path("input")));
            outputs.put(operation, strings(shapes.path(operation).path("output")));
        }
        return new Model("the JavaScript SDK's model " + shapes.path("version").asText(), inputs, outputs);
    }

    private static Set<String> strings(JsonNode array) {
        Set<String> out = new TreeSet<>();
        array.forEach(v -> out.add(v.asText()));
        return out;
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
