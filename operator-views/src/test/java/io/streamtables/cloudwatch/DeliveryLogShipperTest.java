package io.streamtables.cloudwatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.streamtables.channel.Channel;
import io.streamtables.channel.DeliveryLog;
import io.streamtables.channel.TestChannels;
import io.streamtables.roles.ChannelRoles;
import io.streamtables.roles.StsStub;
import io.streamtables.roles.TestRoles;
import io.streamtables.stubs.AwsStub;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The delivery log reaches each channel's LoggingConfiguration target through the official
 * CloudWatchLogsClient (AWS JSON 1.1) against {@link AwsStub}, signed as the channel's role (granted by
 * {@link StsStub}); what arrived is checked line by line.
 */
class DeliveryLogShipperTest {

    AwsStub logs;
    StsStub sts;
    ChannelRoles roles;
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    Map<String, Channel> channels = new ConcurrentHashMap<>();
    /** Log streams that exist, as "group/stream"; PutLogEvents to another is ResourceNotFoundException. */
    Set<String> streams = ConcurrentHashMap.newKeySet();
    /** PutLogEvents calls to refuse with ServiceUnavailableException (500) before accepting again. */
    AtomicInteger refusals = new AtomicInteger();
    /** Log groups whose PutLogEvents is refused for good (AccessDeniedException), as to a role without the right. */
    Set<String> denied = ConcurrentHashMap.newKeySet();
    DeliveryLogShipper shipper;

    @BeforeEach
    void start() throws Exception {
        sts = new StsStub("ASIACHANNELROLE", "session-secret");
        roles = TestRoles.through(sts);
        logs = new AwsStub()
                .on("Logs_20140328.CreateLogGroup", request -> AwsStub.object())
                .on("Logs_20140328.CreateLogStream", request -> {
                    streams.add(request.path("logGroupName").asText() + "/" + request.path("logStreamName").asText());
                    return AwsStub.object();
                })
                .on("Logs_20140328.PutLogEvents", request -> {
                    if (denied.contains(request.path("logGroupName").asText())) {
                        throw new AwsStub.Refusal(400, "AccessDeniedException", "not authorized: logs:PutLogEvents");
                    }
                    if (refusals.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                        throw new AwsStub.Refusal(500, "ServiceUnavailableException", "try again");
                    }
                    String target = request.path("logGroupName").asText() + "/"
                            + request.path("logStreamName").asText();
                    if (!streams.contains(target)) {
                        throw new AwsStub.Refusal(400, "ResourceNotFoundException", "The specified log stream does "
                                + "not exist.");
                    }
                    return AwsStub.object().put("nextSequenceToken", "1");
                });
    }

    @AfterEach
    void stop() {
        if (shipper != null) {
            shipper.stop(null);
        }
        logs.close();
        TestRoles.close(roles);
        sts.close();
    }

    private DeliveryLogShipper shipper(int maxQueued) {
        shipper = new DeliveryLogShipper(TestCloudWatchConfig.against(logs.endpoint(), Map.of(
                "delivery.cloudwatch.logs.interval", "1h", "delivery.cloudwatch.logs.max-queued",
                Integer.toString(maxQueued))).logs(), "us-east-1", arn -> Optional.ofNullable(channels.get(arn)),
                roles, meters, new com.fasterxml.jackson.databind.ObjectMapper());
        shipper.start(null);
        return shipper;
    }

    @Test
    void eachChannelsLinesReachItsGroupAndStreamAsItsRole() throws Exception {
        streams.add("/aws/kinesis/orders/DestinationDelivery");
        Channel orders = channel("orders", "/aws/kinesis/orders", "DestinationDelivery");
        Channel clicks = channel("clicks", "/aws/kinesis/clicks", "Delivery"); // its stream is created on the way
        DeliveryLogShipper shipper = shipper(100);
        DeliveryLog.log(orders, DeliveryLog.Event.COMMITTED, Map.of("rows", 10));
        DeliveryLog.log(clicks, DeliveryLog.Event.ACTIVE, Map.of());
        DeliveryLog.log(orders, DeliveryLog.Event.COMMITTED, Map.of("rows", 20));
        shipper.ship();

        Map<String, List<JsonNode>> arrived = arrived();
        assertEquals(Set.of("/aws/kinesis/orders/DestinationDelivery", "/aws/kinesis/clicks/Delivery"),
                arrived.keySet());
        List<JsonNode> ordersLines = arrived.get("/aws/kinesis/orders/DestinationDelivery");
        assertEquals(List.of(10, 20), ordersLines.stream().map(l -> l.path("rows").asInt()).toList());
        assertEquals(orders.arn(), ordersLines.get(0).path("channelArn").asText(), "the line as the log has it");
        assertEquals("ACTIVE", arrived.get("/aws/kinesis/clicks/Delivery").get(0).path("event").asText());
        assertEquals(1, logs.calls("Logs_20140328.CreateLogGroup").size());
        assertEquals(1, logs.calls("Logs_20140328.CreateLogStream").size());
        assertTrue(logs.calls().stream().allMatch(c -> "ASIACHANNELROLE".equals(c.signedBy())),
                "every call signs as a session of the channel's role");
        assertEquals(Set.of("delivery-orders", "delivery-clicks"), Set.copyOf(sts.calls().stream()
                .map(StsStub.Call::sessionName).toList()));
        assertEquals(3.0, meters.counter("delivery.log.shipped").count());
    }

    @Test
    void refusedLinesAreKeptAndSentAgainAfterABackOff() throws Exception {
        streams.add("/g/s");
        Channel channel = channel("refused", "/g", "s");
        DeliveryLogShipper shipper = shipper(100);
        refusals.set(100);
        DeliveryLog.log(channel, DeliveryLog.Event.COMMITTED, Map.of("rows", 1));
        shipper.ship();
        assertTrue(arrived().isEmpty());
        int refusedCalls = logs.calls("Logs_20140328.PutLogEvents").size();
        shipper.ship(); // within the back-off: no call
        assertEquals(refusedCalls, logs.calls("Logs_20140328.PutLogEvents").size());

        refusals.set(0);
        DeliveryLog.log(channel, DeliveryLog.Event.COMMITTED, Map.of("rows", 2));
        long deadline = System.currentTimeMillis() + 5_000;
        while (arrived().isEmpty() && System.currentTimeMillis() < deadline) {
            Thread.sleep(100);
            shipper.ship();
        }
        assertEquals(List.of(1, 2), arrived().get("/g/s").stream().map(l -> l.path("rows").asInt()).toList());
    }

    @Test
    void pastTheBoundTheTargetHoldingTheMostLosesItsOldestLines() throws Exception {
        streams.add("/stuck/s");
        streams.add("/fine/s");
        denied.add("/stuck");
        Channel stuck = channel("stuck", "/stuck", "s");
        Channel fine = channel("fine", "/fine", "s");
        DeliveryLogShipper shipper = shipper(5);
        for (int i = 0; i < 8; i++) {
            DeliveryLog.log(stuck, DeliveryLog.Event.COMMITTED, Map.of("rows", i));
        }
        DeliveryLog.log(fine, DeliveryLog.Event.COMMITTED, Map.of("rows", 100));
        DeliveryLog.log(fine, DeliveryLog.Event.COMMITTED, Map.of("rows", 101));
        assertEquals(5.0, meters.counter("delivery.log.dropped").count(), "8 + 2 lines, a bound of 5");
        shipper.ship();
        assertEquals(List.of(100, 101), arrived().get("/fine/s").stream().map(l -> l.path("rows").asInt()).toList(),
                "a target refused for good does not crowd out another channel's lines");

        denied.clear();
        Thread.sleep(1_100); // the stuck target's first back-off
        shipper.ship();
        assertEquals(List.of(5, 6, 7), arrived().get("/stuck/s").stream().map(l -> l.path("rows").asInt()).toList(),
                "its newest lines were kept");
    }

    /** Every line accepted by PutLogEvents, by "group/stream", in the order sent. */
    private Map<String, List<JsonNode>> arrived() throws Exception {
        Map<String, List<JsonNode>> arrived = new java.util.TreeMap<>();
        List<AwsStub.Call> puts = logs.calls("Logs_20140328.PutLogEvents");
        for (AwsStub.Call call : puts) {
            String target = call.request().path("logGroupName").asText() + "/"
                    + call.request().path("logStreamName").asText();
            if (call.status() != 200) {
                continue;
            }
            for (JsonNode event : call.request().path("logEvents")) {
                assertTrue(event.path("timestamp").asLong() > 0);
                arrived.computeIfAbsent(target, t -> new ArrayList<>())
                        .add(new ObjectMapper().readTree(event.path("message").asText()));
            }
        }
        return arrived;
    }

    private Channel channel(String name, String group, String stream) {
        Channel channel = TestChannels.of(name, group, stream);
        channels.put(channel.arn(), channel);
        return channel;
    }
}
