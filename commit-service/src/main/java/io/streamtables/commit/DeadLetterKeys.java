package io.streamtables.commit;

import io.streamtables.bus.Reject;
import io.streamtables.channel.Channel;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * Where a shard's rejects of one commit go: {@code PREFIX yyyy/MM/dd/HH/CHANNEL-SHARD-FIRSTSEQ.jsonl}. The key
 * depends only on the first reject after the committed watermark, which a replay meets again, so a replayed
 * batch overwrites its object instead of duplicating entries.
 */
final class DeadLetterKeys {

    private static final DateTimeFormatter HOUR = DateTimeFormatter.ofPattern("yyyy/MM/dd/HH/").withZone(ZoneOffset.UTC);

    private DeadLetterKeys() {
    }

    static String key(Channel channel, Reject first) {
        return channel.dlqPrefix() + HOUR.format(Instant.ofEpochMilli(first.arrivalMillis())) + channel.name() + "-"
                + first.shardId() + "-" + first.sequenceNumber() + ".jsonl";
    }
}
