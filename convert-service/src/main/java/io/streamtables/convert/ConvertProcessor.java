package io.streamtables.convert;

import io.streamtables.bus.ErrorCode;
import io.streamtables.bus.KinesisRecord;
import io.streamtables.bus.RecordChunk;
import io.streamtables.bus.Reject;
import io.streamtables.bus.RowChunk;
import io.streamtables.bus.Topics;
import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelGone;
import io.streamtables.channel.ChannelRegistry;
import io.streamtables.config.RecordsConfig;
import io.streamtables.metrics.DeliveryMetrics;
import io.streamtables.schema.ChannelSchemas;
import io.streamtables.schema.SchemaRegistryConfig;
import io.streamtables.schema.SchemaSource;
import io.streamtables.schema.UnsupportedSchemaException;
import io.streamtables.schema.VersionCaches;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.microprofile.reactive.messaging.Incoming;
import org.eclipse.microprofile.reactive.messaging.Outgoing;
import org.jboss.logging.Logger;

/** The convert stage: each record of a chunk becomes a row or a reject, in order. */
@ApplicationScoped
public class ConvertProcessor {

    private static final Logger LOG = Logger.getLogger(ConvertProcessor.class);

    private final ChannelRegistry channels;
    private final ChannelSchemas schemas;
    private final DeliveryMetrics metrics;
    private final DecodingVersions versions;
    private final Map<String, RecordDecoder> decoders = new ConcurrentHashMap<>();

    public ConvertProcessor(ChannelRegistry channels, ChannelSchemas schemas, DeliveryMetrics metrics,
            RecordsConfig records, SchemaRegistryConfig registry) {
        this.channels = channels;
        this.schemas = schemas;
        this.metrics = metrics;
        this.versions = new DecodingVersions(VersionCaches.of(registry), records.compiledDecoder(), records.maxBytes(),
                registry.missesPerChannel());
    }

    @Incoming(Topics.RECORDS)
    @Outgoing(Topics.ROWS)
    public RowChunk convert(RecordChunk chunk) {
        RecordDecoder decoder;
        try {
            decoder = decoders.computeIfAbsent(chunk.token().channelArn(), this::decoder);
        } catch (SchemaSource.SchemaNotFoundException | UnsupportedSchemaException e) {
            // the channel's pinned version was deleted from the registry: nothing of it can be decoded any more
            String arn = chunk.token().channelArn();
            channels.fail(arn, ChannelSchemas.problem(channels.channel(arn), e));
            throw e;
        }
        ChannelRegistry.Entry entry = channels.get(chunk.token().channelArn()).orElse(null);
        Channel channel = entry == null ? null : entry.channel();
        if (channel != null && channel.followsLatestSchema()) {
            decoder.follow(schemas.latest(channel)); // looked up again once a minute
        }
        List<RowChunk.Row> rows = new ArrayList<>(chunk.records().size());
        List<Reject> rejects = new ArrayList<>();
        for (KinesisRecord r : chunk.records()) {
            if (entry != null && !channel.startPosition().delivers(entry.activatedAt(), r.arrivalMillis())) {
                continue; // not this channel's record, yet the chunk's range moves its watermark past it
            }
            try {
                rows.add(new RowChunk.Row(r.sequenceNumber(), r.arrivalMillis(), decoder.decode(r.data())));
            } catch (ConversionException e) {
                rejects.add(new Reject(chunk.token().streamArn(), chunk.token().shardId(), r.sequenceNumber(),
                        r.arrivalMillis(), e.code(), e.getMessage(), e.field()));
            } catch (SchemaSource.RegistryUnavailableException e) {
                throw e; // nothing is dead-lettered for an outage: the chunk is refused and sent again
            } catch (RuntimeException e) {
                // A record must never stall its shard: an unexpected failure dead-letters it, without its payload.
                LOG.errorf("Converting record %s of %s failed unexpectedly: %s", r.sequenceNumber(),
                        chunk.token().shardId(), e.getClass().getName());
                rejects.add(new Reject(chunk.token().streamArn(), chunk.token().shardId(), r.sequenceNumber(),
                        r.arrivalMillis(), ErrorCode.TYPE_CONVERSION_FAILED,
                        "record could not be converted (" + e.getClass().getSimpleName() + ")", null));
            }
        }
        metrics.handedOn("convert", chunk.token().channelArn(), chunk.records().get(0).arrivalMillis());
        return new RowChunk(chunk.token(), rows, rejects);
    }

    private RecordDecoder decoder(String channelArn) {
        ChannelRegistry.Entry entry = channels.entry(channelArn);
        RecordDecoder decoder = new RecordDecoder(entry.channel(), schemas.forChannel(entry), schemas.source(),
                versions);
        if (decoder.uncompiledKeyword() != null) {
            LOG.warnf("Channel %s: its schema's keyword '%s' is not compiled; the reference validator decodes all its"
                    + " records (slower, same result)", channelArn, decoder.uncompiledKeyword());
            metrics.uncompiledSchema(channelArn, decoder.uncompiledKeyword());
        }
        metrics.decoded(channelArn, "compiled", decoder, RecordDecoder::compiledRecords);
        metrics.decoded(channelArn, "reference", decoder, RecordDecoder::referenceRecords);
        return decoder;
    }

    /** A deleted channel's decoder goes (its versions stay cached while other channels name them). */
    void forget(@Observes ChannelGone gone) {
        decoders.remove(gone.arn());
    }
}
