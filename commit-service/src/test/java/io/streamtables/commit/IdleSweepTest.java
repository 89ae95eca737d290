package io.streamtables.commit;

import static io.streamtables.commit.CommitFixture.MANIFESTS;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.streamtables.channel.Channel;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sweep of channels without a delivery here publishes the dead letters a crashed writer left staged in
 * the channel's own table, never those of a table another channel owns (in a catalog several accounts share, another
 * account's).
 */
class IdleSweepTest {

    @TempDir
    Path dir;

    private CommitFixture f;
    private final DeadLetterOutboxTest.Dlq dlq = new DeadLetterOutboxTest.Dlq();

    @BeforeEach
    void setUp() {
        f = new CommitFixture(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        f.close();
    }

    @Test
    void onlyTheTablesOwnerSweepsItsStrandedDeadLetters() {
        ChannelDelivery crashed = new ChannelDelivery(f.channel, f.catalog.loadTable(f.channel.table()), f.buffer(),
                dlq::store, MANIFESTS);
        crashed.append(f.chunk(null, List.of(f.row("1", "2024-05-01T10:00:00Z")),
                List.of(CommitFixture.reject("2", 1_714_557_600_002L))));
        crashed.cut();
        crashed.commit(); // and the process died before publishing
        Channel intruder = CommitFixture.channel("intruder", f.channel.table().name());
        IdleSweep sweep = new IdleSweep(channel -> f.catalog.loadTable(channel.table()), dlq::store);

        sweep.sweep(intruder);
        sweep.sweep(intruder);
        assertEquals(List.of(), dlq.entries(), "the table is not the intruder's: its dead letters stay staged");

        sweep.sweep(f.channel);
        assertEquals(List.of(), dlq.entries(), "left alone at the first sight: its writer may only be slow");
        sweep.sweep(f.channel);
        assertEquals(List.of("2"), dlq.entries(), "published by the sweep of the table's own channel");
    }
}
