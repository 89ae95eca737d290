package io.streamtables.schema;

import io.streamtables.channel.Channel;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Resolves and caches each channel's schema. */
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
        return cache.computeIfAbsent(channel.arn(),
                k -> ChannelSchema.of(source.latest(channel.schemaArn()).definition(), channel.partitionSource()));
    }

    public SchemaSource source() {
        return source;
    }
}
