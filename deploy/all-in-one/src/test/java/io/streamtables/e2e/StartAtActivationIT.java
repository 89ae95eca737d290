package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * SPEC S2, the default start position: only records put after the channel is ACTIVE are delivered. Records are put
 * before CreateChannel and while the channel is CREATING, then after it is ACTIVE; the table holds exactly the last
 * ones and the DLQ only their dead letters. A channel that read from TRIM_HORIZON would deliver the earlier ones too.
 */
class StartAtActivationIT {

    @Test
    void recordsPutBeforeActiveAreNotDelivered() throws Exception {
        URI kinesis = URI.create(Peers.KINESIS);
        try (DeliveryFixture fixture = new DeliveryFixture("activation", DeliveryFixture.CatalogKind.SQLITE, 1);
                CuttableProxy toKinesis = new CuttableProxy(kinesis.getHost(), kinesis.getPort())) {
            Files.writeString(fixture.workDir.resolve("channels.json"), "[]"); // the channel comes from the API
            // the CREATING checks ask Kinesis for the stream and retry while it does not answer: through a proxy
            // the test cuts, the channel stays CREATING as long as the test needs
            fixture.appConfig.put("delivery.kinesis.endpoint-override", "http://127.0.0.1:" + toKinesis.port());
            try (AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start()) {
                Events events = new Events(61, 1);
                List<Events.Event> early = new ArrayList<>(events.next(200, 10));
                fixture.produce(early); // before the channel exists
                toKinesis.cut();
                fixture.createChannel(app, 1);
                List<Events.Event> creating = events.next(200, 10);
                fixture.produce(creating);
                early.addAll(creating);
                try (KinesisClient api = DeliveryFixture.api(app)) {
                    assertEquals("CREATING", api.describeChannel(r -> r.channelARN(fixture.channelArn()))
                            .channelDescription().channelStatusAsString(), "the records were put while CREATING");
                }
                toKinesis.restore();
                fixture.awaitActive(app);
                early.forEach(e -> fixture.sent.remove(e.id())); // verify fails on any of them in the table or DLQ
                fixture.produce(events.next(400, 10));
                fixture.awaitDelivered(60, app);

                DeliveryFixture.Summary summary = fixture.verify();
                System.out.printf("activation: %d put before ACTIVE, none delivered; after it %s%n", early.size(),
                        summary);
                assertEquals(360, summary.rows(), "the 400 put after ACTIVE, 1 in 10 invalid");
                assertEquals(40, summary.deadLetters(), "and only their dead letters");
            }
        }
    }
}
