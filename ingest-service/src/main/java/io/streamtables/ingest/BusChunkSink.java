package io.streamtables.ingest;

import io.streamtables.bus.RecordChunk;
import io.streamtables.bus.RewindException;
import io.streamtables.bus.Topics;
import io.streamtables.channel.ChannelRegistry;
import io.streamtables.metrics.DeliveryMetrics;
import io.streamtables.tasks.Backoff;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.eclipse.microprofile.reactive.messaging.Channel;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.OnOverflow;
import org.jboss.logging.Logger;

/**
 * The shard readers' chunks onto the bus's {@code records} topic. A chunk is sent again until the convert stage has
 * taken it, which bounds what is in flight. A chunk the commit stage refused for a rewind is not sent again: the
 * rewind reaches the reader over the {@code rewinds} topic (RewindRequests), in memory as over Kafka.
 */
@ApplicationScoped
class BusChunkSink implements ChunkSink {

    private static final Logger LOG = Logger.getLogger(BusChunkSink.class);
    private static final long RETRY_MS = 1_000;
    private static final long MAX_BACKOFF_MS = 30_000;

    private final Emitter<RecordChunk> records;
    private final ChannelRegistry channels;
    private final DeliveryMetrics metrics;

    BusChunkSink(@Channel(Topics.RECORDS) @OnOverflow(value = OnOverflow.Strategy.BUFFER, bufferSize = 4096)
            Emitter<RecordChunk> records, ChannelRegistry channels, DeliveryMetrics metrics) {
        this.records = records;
        this.channels = channels;
        this.metrics = metrics;
    }

    @Override
    public void publish(RecordChunk chunk, BooleanSupplier wanted) throws InterruptedException {
        String arn = chunk.token().channelArn();
        String holder = "ingest/" + chunk.token().shardId();
        metrics.waiting(arn, holder, chunk.records().get(0).arrivalMillis());
        metrics.handedOn("ingest", arn, chunk.records().get(0).arrivalMillis());
        Backoff backoff = new Backoff(RETRY_MS, MAX_BACKOFF_MS);
        try {
            while (channels.isActive(arn) && wanted.getAsBoolean()) {
                try {
                    records.send(chunk).toCompletableFuture().get(5, TimeUnit.MINUTES);
                    return;
                } catch (ExecutionException | TimeoutException | RuntimeException e) {
                    if (RewindException.in(e) != null) {
                        return; // taken, then refused: the reader rewinds on the request the commit stage sent
                    }
                    // e.g. the schema registry is down: the chunk waits, nothing is dead-lettered for it
                    long wait = backoff.next();
                    LOG.warnf("Chunk %s was not taken, sending it again in %d ms: %s", chunk.token(), wait,
                            e.getMessage());
                    Thread.sleep(wait);
                }
            }
        } finally {
            metrics.waiting(arn, holder, 0);
        }
    }
}
