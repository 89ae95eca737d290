package io.streamtables.commit;

import io.streamtables.bus.DlqBatch;
import io.streamtables.bus.Reject;
import io.streamtables.channel.Channel;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a shard's rejects of one commit go: {@code PREFIX yyyy/MM/dd/HH/CHANNEL-SHARD-FIRSTSEQ.jsonl}, one object per
 * batch that fits a bus message. The key depends only on the batch's first reject, and the cut into batches only on
 * the committed rejects, so a publication replayed after a crash writes the same objects again.
 */
final class DeadLetterKeys {

    private static final DateTimeFormatter HOUR = DateTimeFormatter.ofPattern("yyyy/MM/dd/HH/").withZone(ZoneOffset.UTC);
    /** A batch's own fields on the bus, beside its channel ARN and key; and a reject's, beside its strings. */
    private static final int BATCH_OVERHEAD = 64;
    private static final int REJECT_OVERHEAD = 160;

    private DeadLetterKeys() {
    }

    static String key(Channel channel, Reject first) {
        return channel.dlqPrefix() + HOUR.format(Instant.ofEpochMilli(first.arrivalMillis())) + channel.name() + "-"
                + first.shardId() + "-" + first.sequenceNumber() + ".jsonl";
    }

    /**
     * A shard's rejects of one commit, in order, cut into batches of at most {@code maxBytes} on the bus (a Kafka
     * broker refuses larger messages); a reject larger than that alone still makes a batch of its own.
     */
    static List<DlqBatch> batches(Channel channel, List<Reject> rejects, int maxBytes) {
        List<DlqBatch> batches = new ArrayList<>();
        int from = 0;
        while (from < rejects.size()) {
            String key = key(channel, rejects.get(from));
            long size = BATCH_OVERHEAD + bytes(channel.arn()) + bytes(key) + size(rejects.get(from));
            int to = from + 1;
            while (to < rejects.size() && size + size(rejects.get(to)) <= maxBytes) {
                size += size(rejects.get(to));
                to++;
            }
            batches.add(new DlqBatch(channel.arn(), key, List.copyOf(rejects.subList(from, to))));
            from = to;
        }
        return batches;
    }

    /** An upper bound of a reject's size on the bus. */
    static long size(Reject r) {
        return REJECT_OVERHEAD + bytes(r.streamArn()) + bytes(r.shardId()) + bytes(r.sequenceNumber())
                + bytes(r.errorMessage()) + bytes(r.field());
    }

    private static long bytes(String s) {
        return s == null ? 0 : s.getBytes(StandardCharsets.UTF_8).length;
    }
}
