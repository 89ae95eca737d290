package io.streamtables.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.function.ToLongFunction;

/**
 * The bounds of each cache of schema versions in a stage: at most {@code versions} entries and {@code bytes} of
 * memory, estimated from the definitions' sizes ({@code delivery.schema-registry.cache-*}). A registry holds many
 * versions and a record may name any of them, so no cache of them may grow with what producers send.
 * <p>
 * Eviction is Caffeine's W-TinyLFU: a new version displaces a cached one only when it is named more often, so a stream
 * cycling through more versions than fit keeps a stable part of them cached (each build then serves many records)
 * rather than evicting every version just before it is named again, as a cleared map or an LRU list would.
 */
public record VersionCaches(int versions, long bytes) {

    /** What a definition takes as a Jackson tree, per character of its text (bench "versions" measures it). */
    public static final int TREE_BYTES_PER_CHAR = 8;

    public VersionCaches {
        if (versions < 1 || bytes < versions) {
            throw new IllegalArgumentException("delivery.schema-registry.cache-versions must be at least 1 and "
                    + "cache-bytes at least one byte per version");
        }
    }

    public static VersionCaches of(SchemaRegistryConfig config) {
        return new VersionCaches(config.cacheVersions(), config.cacheBytes().asLongValue());
    }

    /**
     * A cache within these bounds. Each entry weighs its estimated bytes, and at least {@code bytes / versions}: so the
     * count bound holds with one weight.
     */
    public <K, V> Cache<K, V> cache(ToLongFunction<V> bytesOf) {
        long least = bytes / versions;
        return Caffeine.newBuilder()
                .maximumWeight(bytes)
                .<K, V>weigher((k, v) -> (int) Math.min(Integer.MAX_VALUE, Math.max(least, bytesOf.applyAsLong(v))))
                .executor(Runnable::run) // evictions on the caller's thread: the bound holds when put returns
                .build();
    }

    /** The estimated memory of a parsed definition. */
    public static long treeBytes(JsonNode definition) {
        return (long) TREE_BYTES_PER_CHAR * definition.toString().length();
    }
}
