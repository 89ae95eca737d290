package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamtables.channel.StartPosition;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Backfill (SPEC S2): a channel tagged {@code delivery:start-position=TRIM_HORIZON} delivers what its
 * stream held before the channel existed, and what comes after, exactly once; one tagged with a timestamp delivers
 * what arrived from then on and nothing older. Without the tag a channel starts at its activation (EndToEndIT).
 */
class BackfillIT {

    @Test
    void aNewChannelDeliversFromItsStartPosition() throws Exception {
        try (DeliveryFixture trim = new DeliveryFixture("backfill-trim", DeliveryFixture.CatalogKind.SQLITE, 2);
                DeliveryFixture at = new DeliveryFixture("backfill-at", DeliveryFixture.CatalogKind.SQLITE, 2)) {
            trim.tag(StartPosition.TAG, "TRIM_HORIZON");
            Events trimEvents = new Events(51, 1);
            trim.produce(trimEvents.next(400, 40)); // before the service, and so the channel, exists

            at.catalogProperties.clear();
            at.catalogProperties.putAll(trim.catalogProperties); // the process has one catalog
            Events atEvents = new Events(52, 1);
            List<Events.Event> older = atEvents.next(200, 40);
            at.produce(older);
            Thread.sleep(1_500);
            Instant from = Instant.now();
            Thread.sleep(1_500);
            at.produce(atEvents.next(200, 40));
            at.tag(StartPosition.TAG, from.toString());
            older.forEach(e -> at.sent.remove(e.id())); // not to be delivered: verify fails on any of them

            try (AllInOneProcess app = new AllInOneProcess(trim.workDir, trim.appConfig).start()) {
                trim.awaitActive(app);
                trim.produce(trimEvents.next(400, 40));
                at.createChannel(app, 2); // through the API, the tag with it
                at.awaitActive(app);
                trim.awaitDelivered(120, app);
                at.awaitDelivered(120, app);
                DeliveryFixture.Summary trimmed = trim.verify();
                DeliveryFixture.Summary timed = at.verify();
                System.out.printf("backfill: TRIM_HORIZON %s; from %s %s%n", trimmed, from, timed);
                assertEquals(780, trimmed.rows(), "400 sent before the channel existed and 400 after, 1 in 40 invalid");
                assertEquals(195, timed.rows(), "the 200 sent after the timestamp, 1 in 40 invalid");
                assertEquals(5, timed.deadLetters(), "and only their dead letters");
            }
        }
    }
}
