package io.streamtables.convert;

import com.github.benmanes.caffeine.cache.Cache;
import io.streamtables.channel.Channel;
import io.streamtables.schema.ChannelSchema;
import io.streamtables.schema.VersionCaches;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;

/**
 * The schema versions the convert stage decodes with, built once and shared by every channel of the stage within
 * {@link VersionCaches}' bounds: a registry holds many versions and a record may name any of them, so what they cost
 * must not grow with the channels or with what producers send.
 */
final class DecodingVersions {

    /** What a built version depends on: the version, and the channel's schema and partition field. */
    private record Key(UUID versionId, String schemaArn, String partitionSource) {
    }

    private final Cache<Key, DecodingVersion> cache;
    private final boolean compile;
    private final int maxRecordBytes;
    private final int missesPerChannel;
    private final LongAdder built = new LongAdder();

    /**
     * @param compile whether to compile schemas into the fast path ({@code delivery.records.compiled-decoder})
     * @param maxRecordBytes the largest record, and the most a GSR body may inflate to
     * @param missesPerChannel the unknown versions a channel's records may have looked up in a second
     *     ({@link LookupBudget})
     */
    DecodingVersions(VersionCaches bounds, boolean compile, int maxRecordBytes, int missesPerChannel) {
        this.cache = bounds.cache(version -> version.bytes);
        this.compile = compile;
        this.maxRecordBytes = maxRecordBytes;
        this.missesPerChannel = missesPerChannel;
    }

    /** A channel's own budget of lookups. */
    LookupBudget lookupBudget() {
        return new LookupBudget(missesPerChannel, System::currentTimeMillis);
    }

    int maxRecordBytes() {
        return maxRecordBytes;
    }

    /** The channel's decoding of a version it was given (its pinned or latest one): built unless cached. */
    DecodingVersion of(Channel channel, ChannelSchema schema) {
        if (schema.versionId() == null) { // a schema without a registry version (a local file)
            return build(schema);
        }
        Key key = key(channel, schema.versionId());
        DecodingVersion known = cache.getIfPresent(key);
        if (known == null) {
            known = build(schema);
            cache.put(key, known);
        }
        return known;
    }

    /** The channel's decoding of a version its records named, or null when it is not cached. */
    DecodingVersion cached(Channel channel, UUID versionId) {
        return cache.getIfPresent(key(channel, versionId));
    }

    void put(Channel channel, UUID versionId, DecodingVersion version) {
        cache.put(key(channel, versionId), version);
    }

    /** Builds a version's validator, converter and fast path (the costly part: the cache spares it). */
    DecodingVersion build(ChannelSchema schema) {
        built.increment();
        return new DecodingVersion(schema, compile, maxRecordBytes);
    }

    /** Versions built so far: each a validator and decoder compiled. */
    long built() {
        return built.sum();
    }

    private static Key key(Channel channel, UUID versionId) {
        return new Key(versionId, channel.schemaArn(), channel.partitionSource());
    }
}
