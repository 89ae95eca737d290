package io.streamtables.schema;

import io.streamtables.channel.Channel;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Resolves and caches each channel's schema (its latest version when first used). */
@ApplicationScoped
public class ChannelSchemas {

    private final SchemaSource source;
    private final Map<String, ChannelSchema> cache = new ConcurrentHashMap<>();

    public ChannelSchemas(SchemaSource source) {
        this.source = source;
    }

    /**
     * @throws IllegalArgumentException when the schema cannot be found or mapped; the message says why
     * @throws SchemaSource.RegistryUnavailableException when the registry cannot be reached
     */
    public ChannelSchema forChannel(Channel channel) {
        // keyed by what the schema depends on: a channel deleted and created again keeps its ARN
        return cache.computeIfAbsent(channel.schemaArn() + "#" + channel.partitionSource(), k -> resolve(channel));
    }

    /** Resolves and maps the channel's schema without the cache: what CreateChannel checks (SPEC C3). */
    public ChannelSchema resolve(Channel channel) {
        return ChannelSchema.of(source.latest(channel).definition(), channel.partitionSource());
    }

    public SchemaSource source() {
        return source;
    }
}
