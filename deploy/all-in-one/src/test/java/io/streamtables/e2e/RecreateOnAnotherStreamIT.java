package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Files;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.kinesis.KinesisClient;

/**
 * A channel deleted and created again under its name on another stream, into the same table. The second stream's
 * shards have the first's ids; the table's checkpoint keeps each stream's positions apart, so the second stream is
 * read from the channel's activation, not after the first stream's sequence numbers (which Kinesis does not find in
 * it). A hard kill while the second stream's records flow resumes it from its positions in the checkpoint: every
 * record of both streams is in the table once.
 */
class RecreateOnAnotherStreamIT {

    @Test
    void aChannelCreatedAgainOnAnotherStreamDeliversBothExactlyOnce() throws Exception {
        try (DeliveryFixture fixture = new DeliveryFixture("recreate", DeliveryFixture.CatalogKind.SQLITE, 1)) {
            Files.writeString(fixture.workDir.resolve("channels.json"), "[]"); // the channel comes from the API
            try (AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start()) {
                fixture.createChannel(app, 1);
                fixture.awaitActive(app);
                Events events = new Events(54, 1);
                fixture.produce(events.next(400, 40));
                fixture.awaitDelivered(60, app);

                try (KinesisClient api = DeliveryFixture.api(app)) {
                    api.deleteChannel(r -> r.channelARN(fixture.channelArn()));
                }
                fixture.awaitGone(app);
                fixture.createStream(fixture.channelName + "-b");
                fixture.createChannel(app, 1);
                fixture.awaitActive(app);
                fixture.produce(events.next(400, 40));
                fixture.awaitDelivered(60, app);
                fixture.produce(events.next(400, 40));
                Thread.sleep(1_000); // read, not all of it committed
                app.kill();
                System.out.printf("recreate: killed with %s of the second stream in the table%n",
                        fixture.committedWatermarks());
                app.start(); // on other ports
                fixture.awaitDelivered(60, app);

                DeliveryFixture.Summary summary = fixture.verify();
                System.out.printf("recreate: %s of two streams, across a hard kill%n", summary);
                assertEquals(1_170, summary.rows(), "1 200 events, 1 in 40 invalid");
                assertEquals(30, summary.deadLetters());
                try (KinesisClient api = DeliveryFixture.api(app)) {
                    assertEquals("ACTIVE", api.describeChannel(r -> r.channelARN(fixture.channelArn()))
                            .channelDescription().channelStatusAsString());
                }
                assertFalse(app.log().contains("Unable to find record"), "a shard read after another stream's position");
            }
        }
    }
}
