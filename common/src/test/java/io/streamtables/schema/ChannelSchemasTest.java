package io.streamtables.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelDefinition;
import io.streamtables.channel.ChannelRegistry;
import io.streamtables.config.DeliveryConfig;
import io.streamtables.config.TestDeliveryConfig;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Which version each channel decodes with. */
class ChannelSchemasTest {

    private static final VersionCaches BOUNDS = new VersionCaches(2000, 64 << 20);

    private static final ObjectMapper JSON = new ObjectMapper();
    static final UUID V1 = UUID.randomUUID();
    static final UUID V2 = UUID.randomUUID();
    static final String ARN = "arn:aws:glue:us-east-1:123456789012:schema/r/s";

    /** A registry of two versions; {@code latest} says which one is the latest; {@code down}: it does not answer. */
    static final class Registry implements SchemaSource {
        final AtomicReference<UUID> latest = new AtomicReference<>(V1);
        volatile boolean down;

        @Override
        public SchemaVersion latest(String schemaArn) {
            if (down) {
                throw new RegistryUnavailableException("the schema registry is not reachable", null);
            }
            return version(latest.get());
        }

        @Override
        public SchemaVersion version(UUID id) {
            String extra = id.equals(V2) ? ", \"more\": {\"type\": \"string\"}" : "";
            try {
                return new SchemaVersion(id, ARN, JSON.readTree("{\"type\": \"object\", \"required\": [\"ts\"], "
                        + "\"properties\": {\"ts\": {\"type\": \"string\", \"format\": \"date-time\"}" + extra + "}}"));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    @Test
    void aChannelDecodesWithItsPinnedVersionOrTheLatestItFollows() {
        Registry registry = new Registry();
        AtomicLong now = new AtomicLong(1_000);
        ChannelSchemas schemas = new ChannelSchemas(registry, 60_000, now::get, BOUNDS);
        Channel pinned = channel("pinned", Map.of());
        Channel following = channel("following", Map.of(Channel.SCHEMA_VERSION_TAG, "LATEST"));
        assertEquals(V1, schemas.forChannel(entry(pinned, V1)).versionId());
        assertEquals(V1, schemas.forChannel(entry(following, V1)).versionId());

        registry.latest.set(V2);
        assertEquals(V1, schemas.forChannel(entry(pinned, V1)).versionId(), "pinned: the new version changes nothing");
        assertEquals(V1, schemas.forChannel(entry(following, V1)).versionId(), "looked up once a minute");
        now.addAndGet(60_000);
        assertEquals(V2, schemas.forChannel(entry(following, V1)).versionId());
        assertEquals(V2, schemas.forChannel(entry(pinned, null)).versionId(), "activated before pinning: the latest");
        assertEquals("string", schemas.forChannel(entry(following, V1)).iceberg().findType("more").toString());

        registry.down = true;
        registry.latest.set(V1);
        now.addAndGet(60_000);
        assertEquals(V2, schemas.forChannel(entry(following, V1)).versionId(), "the registry is down: kept");
        registry.down = false;
        assertEquals(V2, schemas.forChannel(entry(following, V1)).versionId(), "until the next refresh");
        now.addAndGet(60_000);
        assertEquals(V1, schemas.forChannel(entry(following, V1)).versionId());
        registry.down = true;
        assertThrows(SchemaSource.RegistryUnavailableException.class,
                () -> new ChannelSchemas(registry, 60_000, now::get, BOUNDS).latest(following),
                "nothing found before: the caller waits");

        assertThrows(IllegalArgumentException.class, () -> Channel.checkLengths(definition("bad",
                Map.of(Channel.SCHEMA_VERSION_TAG, "NEWEST"), "JSON")));
        assertThrows(IllegalArgumentException.class, () -> Channel.checkLengths(definition("gsr",
                Map.of(Channel.SCHEMA_VERSION_TAG, "LATEST"), "GSR_JSON")), "GSR_JSON records name their version");
    }

    private static ChannelRegistry.Entry entry(Channel channel, UUID pinned) {
        return new ChannelRegistry.Entry(channel, ChannelRegistry.Status.ACTIVE, null, Instant.EPOCH, Instant.EPOCH,
                pinned, 0);
    }

    private static Channel channel(String name, Map<String, String> tags) {
        return Channel.of(definition(name, tags, "JSON"), CONFIG, "123456789012");
    }

    private static ChannelDefinition definition(String name, Map<String, String> tags, String format) {
        return new ChannelDefinition(name, null,
                List.of(new ChannelDefinition.StreamConfiguration("arn:aws:kinesis:us-east-1:123456789012:stream/s",
                        new ChannelDefinition.RecordConfiguration(format, ARN))),
                new ChannelDefinition.S3TablesDestinationConfiguration(300,
                        new ChannelDefinition.DeadLetterQueueConfiguration("arn:aws:s3:::dlq", "123456789012", null),
                        List.of(new ChannelDefinition.TableConfiguration("arn:aws:s3tables:us-east-1:123456789012:bucket/b",
                                "ns", "t", "ZSTD", new ChannelDefinition.PartitionSpec(List.of(
                                        new ChannelDefinition.PartitionField("TIME_HOUR", "ts")))))),
                null, null, tags);
    }

    private static final DeliveryConfig CONFIG = TestDeliveryConfig.forAccount("123456789012");
}
