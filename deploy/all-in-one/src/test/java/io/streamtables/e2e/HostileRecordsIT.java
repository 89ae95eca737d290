package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A hostile-input campaign, as a user's producer would send it: through kinesis-local into one all-in-one
 * process. Records that are not UTF-8, numbers with huge exponents or 100 000 digits, 10 000-deep nesting, repeated
 * names, unpaired surrogates, a pattern a backtracking engine takes minutes on, Glue Schema Registry bytes with a zlib
 * bomb, a truncated header, escaped NULs, a 900 KB string (kinesis-local takes no record over 1 MiB), odd time
 * offsets, and 1 000 records each in an hour of its own ({@code -Dhostile.hours=10000} for more), between ordinary
 * events. Each record is in the table or once
 * in the DLQ with its code; the good records after them are delivered; a second channel created afterwards in the
 * same process delivers too; no payload byte reaches the DLQ or the log; the process neither dies nor restarts.
 */
class HostileRecordsIT {

    @Test
    void hostileRecordsNeitherStallNorLeak() throws Exception {
        try (DeliveryFixture fixture = new DeliveryFixture("hostile", DeliveryFixture.CatalogKind.SQLITE, 2, "JSON",
                HostileEvents.SCHEMA);
                AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start()) {
            fixture.awaitActive(app);
            Events events = new Events(23, 1);
            HostileEvents hostile = new HostileEvents(1_000_000);
            List<Events.Event> corpus = hostile.corpus();
            fixture.produce(events.next(200, 1_000_000));
            fixture.produce(corpus);
            fixture.produce(events.next(200, 1_000_000));
            long sentAt = System.nanoTime();
            fixture.awaitDelivered(120, app);
            System.out.printf("hostile: %d hostile records between 400 ordinary ones, all delivered or dead-lettered "
                    + "%d ms after the last was sent%n", corpus.size(), (System.nanoTime() - sentAt) / 1_000_000);

            // each hour is a file of its own, written one PUT at a time: 10 000 take S3Proxy about 6 minutes
            int hours = Integer.getInteger("hostile.hours", 1_000);
            List<Events.Event> spread = hostile.spreadOverHours(hours);
            long spreadAt = System.nanoTime();
            fixture.produce(spread);
            fixture.awaitDelivered(120 + hours / 10, app);
            System.out.printf("hostile: %d records in %d hours delivered in %d ms%n", hours, hours,
                    (System.nanoTime() - spreadAt) / 1_000_000);
            DeliveryFixture.Summary summary = fixture.verify();
            System.out.printf("hostile: %d rows, %d dead letters, %d data files in %d commits%n", summary.rows(),
                    summary.deadLetters(), summary.files(), summary.commits());
            assertEquals(corpus.stream().filter(e -> !e.valid()).count(), summary.deadLetters());

            // a channel a user creates next, in the same process, delivers at once
            try (DeliveryFixture next = new DeliveryFixture("hostile-next", DeliveryFixture.CatalogKind.SQLITE, 2)) {
                next.catalogProperties.clear();
                next.catalogProperties.putAll(fixture.catalogProperties); // the process has one catalog
                next.createChannel(app, 2);
                next.awaitActive(app);
                next.produce(new Events(29, 1).next(300, 30));
                long at = System.nanoTime();
                next.awaitDelivered(60, app);
                System.out.printf("hostile: a channel created afterwards delivered in %d ms%n",
                        (System.nanoTime() - at) / 1_000_000);
                next.verify();
            }

            assertTrue(app.isAlive(), "the process died");
            assertEquals(1, app.starts());
            String log = app.log();
            assertFalse(log.contains(Events.SECRET), "a payload byte in the log");
            assertFalse(log.contains("OutOfMemoryError"), "the heap ran out");
            // a chunk the full buffer refused comes back; SmallRye logs the refusal at ERROR
            List<String> errors = new ArrayList<>(GeneratedRecordsIT.exceptionLines(log));
            errors.removeIf(line -> line.contains("ChannelBuffer$FullException"));
            assertTrue(errors.isEmpty(), String.join("\n", errors.subList(0, Math.min(10, errors.size()))));
        }
    }
}
