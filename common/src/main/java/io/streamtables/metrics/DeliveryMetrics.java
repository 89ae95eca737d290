package io.streamtables.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.streamtables.channel.ChannelGone;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import java.util.function.ToLongFunction;

/**
 * Per-channel delivery metrics on {@code /q/metrics} (SPEC C7). Data freshness is the age of the oldest record
 * read from the stream and not yet committed, wherever it waits: in a chunk the next stage has not taken yet
 * (a schema registry outage, say) or in the commit buffer. Chunk latency per stage is the age of a chunk's
 * oldest record when the stage hands the chunk on, so the difference between two stages is what the later one
 * (and the bus before it) added.
 */
@ApplicationScoped
public class DeliveryMetrics {

    private final MeterRegistry registry;
    /** channel → (who holds records → arrival time of the oldest one it holds). */
    private final Map<String, Map<String, Long>> waiting = new ConcurrentHashMap<>();
    /** channel → (shard read here → milliseconds behind the stream's tip). */
    private final Map<String, Map<String, Long>> behind = new ConcurrentHashMap<>();

    public DeliveryMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** {@code holder} holds records of the channel since {@code oldestArrivalMillis}; 0 when it holds none. */
    public void waiting(String channelArn, String holder, long oldestArrivalMillis) {
        Map<String, Long> holders = waiting.computeIfAbsent(channelArn, arn -> {
            Gauge.builder("delivery.data.freshness", this, m -> m.freshnessSeconds(arn))
                    .description("age of the oldest record read and not yet committed")
                    .baseUnit("seconds").tag("channel", arn).register(registry);
            return new ConcurrentHashMap<>();
        });
        if (oldestArrivalMillis > 0) {
            holders.put(holder, oldestArrivalMillis);
        } else {
            holders.remove(holder);
        }
    }

    /** Every channel's freshness in seconds, of the channels whose records this process holds or has held. */
    public Map<String, Double> freshness() {
        Map<String, Double> all = new java.util.TreeMap<>();
        waiting.keySet().forEach(arn -> all.put(arn, freshnessSeconds(arn)));
        return all;
    }

    double freshnessSeconds(String channelArn) {
        return waiting.getOrDefault(channelArn, Map.of()).values().stream().mapToLong(Long::longValue).min()
                .stream().mapToDouble(oldest -> Math.max(0, System.currentTimeMillis() - oldest) / 1000.0)
                .findFirst().orElse(0);
    }

    /**
     * {@code stage} (ingest, convert, commit, dlq) is done with records of the channel whose oldest arrived in the
     * stream at {@code oldestArrivalMillis}.
     */
    public void handedOn(String stage, String channelArn, long oldestArrivalMillis) {
        if (oldestArrivalMillis <= 0) {
            return;
        }
        Timer.builder("delivery.chunk.latency")
                .description("age of a chunk's oldest record when the stage hands the chunk on")
                .tags("stage", stage, "channel", channelArn).publishPercentiles(0.5, 0.99)
                .distributionStatisticExpiry(Duration.ofMinutes(1)).register(registry)
                .record(Duration.ofMillis(Math.max(0, System.currentTimeMillis() - oldestArrivalMillis)));
    }

    /**
     * How far a shard's reader is behind the stream's tip (GetRecords' MillisBehindLatest); a negative value
     * removes the shard (this instance no longer reads it).
     */
    public void behindLatest(String channelArn, String shardId, long millis) {
        Map<String, Long> shards = behind.computeIfAbsent(channelArn, arn -> new ConcurrentHashMap<>());
        if (millis < 0) {
            shards.remove(shardId);
            registry.find("delivery.shard.lag").tags("channel", channelArn, "shard", shardId).meters()
                    .forEach(registry::remove);
            return;
        }
        if (shards.put(shardId, millis) == null) {
            Gauge.builder("delivery.shard.lag", shards, m -> m.getOrDefault(shardId, 0L) / 1000.0)
                    .description("how far the shard's reader is behind the tip of the stream").baseUnit("seconds")
                    .tags("channel", channelArn, "shard", shardId).register(registry);
        }
    }

    /** The shard leases an ingest instance holds, tagged with its lease owner id. */
    public void shardLeases(String owner, IntSupplier held) {
        Gauge.builder("delivery.shard.leases", held, IntSupplier::getAsInt)
                .description("shard leases held by this ingest instance").tag("owner", owner).strongReference(true)
                .register(registry);
    }

    /**
     * The records of a channel the convert stage decoded by {@code path}: {@code compiled} (the fast path) or
     * {@code reference} (networknt: the records the fast path was not sure of, every refused one among them).
     */
    public <T> void decoded(String channelArn, String path, T decoder, ToLongFunction<T> records) {
        // the meter holds the decoder weakly: the caller keeps it as long as the channel's stage lives
        FunctionCounter.builder("delivery.records.decoded", decoder, d -> records.applyAsLong(d))
                .description("records decoded, by the compiled fast path or the reference validator")
                .tags("channel", channelArn, "path", path).register(registry);
    }

    /** A channel's schema has a keyword the fast path does not compile: the reference decodes all its records. */
    public void uncompiledSchema(String channelArn, String keyword) {
        registry.counter("delivery.schemas.uncompiled", "channel", channelArn, "keyword", keyword).increment();
    }

    public void committed(String channelArn, long rows, long deadLetters, long files, long bytes) {
        counter("delivery.records.delivered", channelArn).increment(rows);
        counter("delivery.records.dead.lettered", channelArn).increment(deadLetters);
        counter("delivery.files.written", channelArn).increment(files);
        counter("delivery.bytes.written", channelArn).increment(bytes);
        counter("delivery.commits", channelArn).increment();
    }

    public void commitFailed(String channelArn) {
        counter("delivery.commit.failures", channelArn).increment();
    }

    /** The meters of a deleted channel go with it: channels come and go for months, meters must not pile up. */
    public void forget(@Observes ChannelGone gone) {
        waiting.remove(gone.arn());
        behind.remove(gone.arn());
        List.copyOf(registry.getMeters()).stream().filter(m -> gone.arn().equals(m.getId().getTag("channel")))
                .forEach(registry::remove);
    }

    private Counter counter(String name, String channelArn) {
        return registry.counter(name, "channel", channelArn);
    }
}
