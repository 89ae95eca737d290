package io.streamtables.commit;

import io.streamtables.catalog.DeliveryTables;
import io.streamtables.channel.Channel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.NoSuchTableException;

/**
 * The dead letters of active channels this instance delivers nothing of (after a restart that followed its last
 * commit, say): those a crash left staged and unpublished are published, as an open delivery's sweep does. Only on a
 * table the channel owns: in a catalog several accounts share, another channel's dead letters are not this one's.
 */
final class IdleSweep {

    private final Function<Channel, Table> tables;
    private final DeadLetterOutbox.Dlq dlq;
    private final Map<String, DeadLetterOutbox> outboxes = new ConcurrentHashMap<>();

    /** @param tables loads a channel's table from its catalog */
    IdleSweep(Function<Channel, Table> tables, DeadLetterOutbox.Dlq dlq) {
        this.tables = tables;
        this.dlq = dlq;
    }

    /** Publishes what the channel's table holds staged since the previous sweep of it. */
    void sweep(Channel channel) {
        DeadLetterOutbox outbox = outboxes.get(channel.arn());
        if (outbox == null) {
            Table table;
            try {
                table = tables.apply(channel);
            } catch (NoSuchTableException nothingCommittedYet) {
                return;
            }
            if (!DeliveryTables.owned(table, channel.arn())) {
                return;
            }
            outbox = new DeadLetterOutbox(table, dlq);
            outboxes.put(channel.arn(), outbox);
        }
        outbox.sweep();
    }

    /** The channel has a delivery here now, or is gone: its delivery sweeps, or nothing does. */
    void forget(String channelArn) {
        outboxes.remove(channelArn);
    }
}
