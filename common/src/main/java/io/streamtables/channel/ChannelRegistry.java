package io.streamtables.channel;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.config.DeliveryConfig;
import io.streamtables.state.ChannelStateStore;
import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.jboss.logging.Logger;

/**
 * The channels this service delivers, loaded from {@code delivery.channels-file}, with their state.
 */
@ApplicationScoped
public class ChannelRegistry {

    private static final Logger LOG = Logger.getLogger(ChannelRegistry.class);

    public enum Status { ACTIVE, FAILED }

    /** A channel with the time it became active and its status. */
    public record Entry(Channel channel, Instant activatedAt, Status status, String statusReason) {
    }

    private final Map<String, Entry> channels = new ConcurrentHashMap<>();

    public ChannelRegistry(DeliveryConfig config, ChannelStateStore state, ObjectMapper json) {
        config.channelsFile().ifPresent(file -> {
            for (ChannelDefinition d : read(Path.of(file), json)) {
                Channel channel;
                try {
                    channel = Channel.of(d, config);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("Channel '" + d.channelName() + "' in " + file + ": "
                            + e.getMessage(), e);
                }
                Instant activatedAt = state.activate(channel.arn(), Instant.now());
                channels.put(channel.arn(), new Entry(channel, activatedAt, Status.ACTIVE, null));
                LOG.infof("Channel %s active since %s: stream %s → table %s", channel.arn(), activatedAt,
                        channel.streamArn(), channel.table());
            }
        });
    }

    private static List<ChannelDefinition> read(Path file, ObjectMapper json) {
        try {
            String text = Files.readString(file);
            return text.trim().startsWith("[")
                    ? List.of(json.readValue(text, ChannelDefinition[].class))
                    : List.of(json.readValue(text, ChannelDefinition.class));
        } catch (IOException e) {
            throw new IllegalArgumentException("Cannot read channels file " + file
                    + " (delivery.channels-file): " + e.getMessage(), e);
        }
    }

    public Collection<Entry> all() {
        return channels.values();
    }

    public Optional<Entry> get(String channelArn) {
        return Optional.ofNullable(channels.get(channelArn));
    }

    public Channel channel(String channelArn) {
        return get(channelArn).map(Entry::channel)
                .orElseThrow(() -> new IllegalStateException("Unknown channel " + channelArn));
    }

    public boolean isActive(String channelArn) {
        return get(channelArn).map(e -> e.status() == Status.ACTIVE).orElse(false);
    }

    /** FAILED is final (SPEC C4): delivery stops and the reason says what to fix. */
    public void fail(String channelArn, String reason) {
        channels.computeIfPresent(channelArn, (k, e) -> {
            if (e.status() != Status.FAILED) {
                LOG.errorf("Channel %s FAILED: %s", channelArn, reason);
            }
            return new Entry(e.channel(), e.activatedAt(), Status.FAILED, reason);
        });
    }
}
