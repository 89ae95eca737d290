package io.streamtables.schema;

import com.github.benmanes.caffeine.cache.Cache;
import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelRegistry;
import io.streamtables.config.Secrets;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.jboss.logging.Logger;

/**
 * Resolves and caches the versions of channels' schemas: the one a channel decodes with (pinned when it became
 * ACTIVE), the one a GSR_JSON record names, and the latest, which a channel following it looks up again every
 * {@code delivery.schema-registry.latest-refresh}. Versions never change once registered; they are cached within
 * {@link VersionCaches}' bounds.
 */
@ApplicationScoped
public class ChannelSchemas {

    private static final Logger LOG = Logger.getLogger(ChannelSchemas.class);

    private record Latest(ChannelSchema schema, long until) {
    }

    private final SchemaSource source;
    private final long latestRefreshMillis;
    private final LongSupplier clock;
    private final Cache<String, ChannelSchema> versions;
    private final Map<String, Latest> latest = new ConcurrentHashMap<>();

    @Inject
    public ChannelSchemas(SchemaSource source, SchemaRegistryConfig config) {
        this(source, config.latestRefresh().toMillis(), System::currentTimeMillis, VersionCaches.of(config));
    }

    ChannelSchemas(SchemaSource source, long latestRefreshMillis, LongSupplier clock, VersionCaches bounds) {
        this.source = source;
        // the tree, and the Iceberg schema mapped from it (about as large again)
        this.versions = bounds.cache(schema -> 2 * VersionCaches.treeBytes(schema.json()));
        this.latestRefreshMillis = latestRefreshMillis;
        this.clock = clock;
    }

    /**
     * The version the channel decodes with: its pinned one, or the latest for a channel that follows it
     * ({@link Channel#followsLatestSchema}) or was activated before versions were pinned.
     *
     * @throws IllegalArgumentException when the schema cannot be found or mapped; the message says why
     * @throws SchemaSource.RegistryUnavailableException when the registry cannot be reached
     */
    public ChannelSchema forChannel(ChannelRegistry.Entry entry) {
        return entry.channel().followsLatestSchema() ? latest(entry.channel()) : pinned(entry);
    }

    /** The version pinned when the channel became ACTIVE; the latest for one activated before versions were pinned. */
    public ChannelSchema pinned(ChannelRegistry.Entry entry) {
        return entry.schemaVersionId() == null ? latest(entry.channel())
                : version(entry.channel(), entry.schemaVersionId());
    }

    /** A version of the channel's schema, by id (the one a GSR_JSON record names). */
    public ChannelSchema version(Channel channel, UUID versionId) {
        // keyed by what the mapping depends on: the partition source is the channel's
        String key = versionId + "#" + channel.partitionSource();
        ChannelSchema schema = versions.getIfPresent(key);
        if (schema == null) {
            schema = ChannelSchema.of(source.version(versionId, channel), channel.partitionSource());
            versions.put(key, schema);
        }
        return schema;
    }

    /**
     * The latest version, looked up again once {@code delivery.schema-registry.latest-refresh} has passed. A lookup
     * that fails (the registry does not answer, or the new latest version cannot be a table's) keeps the version found
     * before until the next refresh: a channel following the latest never stalls on it.
     */
    public ChannelSchema latest(Channel channel) {
        String key = channel.schemaArn() + "#" + channel.partitionSource();
        long now = clock.getAsLong();
        Latest cached = latest.get(key);
        if (cached == null || cached.until() <= now) {
            ChannelSchema found;
            try {
                found = resolve(channel);
            } catch (RuntimeException e) {
                if (cached == null) {
                    throw e;
                }
                LOG.warnf("Looking up the latest version of %s failed; version %s is kept until the next lookup: %s",
                        channel.schemaArn(), cached.schema().versionId(), Secrets.redact(e.getMessage()));
                found = cached.schema();
            }
            cached = new Latest(found, now + latestRefreshMillis);
            latest.put(key, cached);
        }
        return cached.schema();
    }

    /** Resolves and maps the channel's latest version without the cache: what CreateChannel checks (SPEC C3). */
    public ChannelSchema resolve(Channel channel) {
        return ChannelSchema.of(source.latest(channel), channel.partitionSource());
    }

    /** Why the channel's schema cannot be used, naming the member to correct (a lookup or mapping refused it). */
    public static String problem(Channel channel, IllegalArgumentException e) {
        return "StreamConfigurationList[0].RecordConfiguration.GSRSchemaARN " + channel.schemaArn() + ": "
                + e.getMessage();
    }

    public SchemaSource source() {
        return source;
    }
}
