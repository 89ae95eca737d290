package io.streamtables.convert;

import io.streamtables.bench.Events;
import io.streamtables.bench.Result;
import io.streamtables.bench.Setup;
import io.streamtables.channel.Channel;
import io.streamtables.schema.ChannelSchema;
import io.streamtables.schema.SchemaSource;
import io.streamtables.schema.VersionCaches;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * GSR records cycling through many versions of the channel's schema (each named again only after all the
 * others), against records of a single version: thread CPU per record and versions built, with the stage's default
 * cache bounds, with bounds that fit them all and with bounds that fit half of them; and what one built version
 * retains, against the estimate the cache weighs it by ({@link DecodingVersion#BYTES_PER_CHAR}).
 */
public final class VersionsBench {

    private VersionsBench() {
    }

    public static List<Result> run(long seed, int versions, int rounds) throws Exception {
        Map<UUID, SchemaSource.SchemaVersion> registry = new HashMap<>();
        Channel channel = ConvertBench.gsrChannel("versions");
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < versions; i++) {
            UUID id = UUID.randomUUID();
            // a version per description: the same columns, a different definition
            String definition = Events.SCHEMA.replace("\"title\": \"BenchEvent\",",
                    "\"title\": \"BenchEvent\", \"description\": \"version " + i + "\",");
            registry.put(id, new SchemaSource.SchemaVersion(id, channel.schemaArn(), Setup.JSON.readTree(definition)));
            ids.add(id);
        }
        SchemaSource source = new SchemaSource() {
            public SchemaVersion latest(String arn) {
                return registry.get(ids.get(0));
            }

            public SchemaVersion version(UUID id) {
                return registry.get(id);
            }
        };
        byte[] event = Events.generate(seed, 1, 24)[0];
        Map<UUID, byte[]> records = new HashMap<>();
        for (UUID id : ids) {
            records.put(id, ConvertBench.envelope(id, event, false));
        }
        ChannelSchema first = ChannelSchema.of(registry.get(ids.get(0)), Events.PARTITION_FIELD);
        VersionCaches defaults = new VersionCaches(2000, 64L << 20);
        VersionCaches fitting = new VersionCaches(versions, 4L << 30);

        List<Result> out = new ArrayList<>();
        List<UUID> single = new ArrayList<>();
        for (int i = 0; i < versions; i++) {
            single.add(ids.get(0));
        }
        // the JIT first: the first scenario measured would otherwise pay for compiling the decoder's code
        measure("warm_up", channel, first, source, fitting, ids, records, rounds);
        out.add(measure("single_version", channel, first, source, defaults, single, records, rounds));
        out.add(measure("cycled_default_bounds", channel, first, source, defaults, ids, records, rounds));
        out.add(measure("cycled_fitting_bounds", channel, first, source, fitting, ids, records, rounds));
        out.add(measure("cycled_half_fitting", channel, first, source, new VersionCaches(versions / 2, 64L << 20), ids,
                records, rounds));
        out.add(retained(channel, registry, ids));
        return out;
    }

    private static Result measure(String kind, Channel channel, ChannelSchema first, SchemaSource source,
            VersionCaches bounds, List<UUID> order, Map<UUID, byte[]> records, int rounds) {
        DecodingVersions built = new DecodingVersions(bounds, true, Setup.MAX_RECORD_BYTES, Integer.MAX_VALUE);
        RecordDecoder decoder = new RecordDecoder(channel, first, source, built);
        for (UUID id : order) { // warm-up: one round
            decoder.decode(records.get(id));
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long builtBefore = built.built();
        long start = threads.getCurrentThreadCpuTime();
        int n = 0;
        for (int round = 0; round < rounds; round++) {
            for (UUID id : order) {
                decoder.decode(records.get(id));
                n++;
            }
        }
        double micros = (threads.getCurrentThreadCpuTime() - start) / 1000.0 / n;
        return new Result("versions_" + kind).put("versions", new java.util.HashSet<>(order).size())
                .put("cache_versions", bounds.versions()).put("cache_mb", bounds.bytes() >> 20).put("records", n)
                .put("built", built.built() - builtBefore).put("cpu_us_per_record", Math.round(micros * 10) / 10.0);
    }

    /** Heap retained by built versions (after full GCs), per version and per character of its definition. */
    private static Result retained(Channel channel, Map<UUID, SchemaSource.SchemaVersion> registry, List<UUID> ids) {
        int n = Math.min(500, ids.size());
        List<DecodingVersion> kept = new ArrayList<>();
        long before = usedAfterGc();
        long chars = 0;
        for (int i = 0; i < n; i++) {
            SchemaSource.SchemaVersion v = registry.get(ids.get(i));
            ChannelSchema schema = ChannelSchema.of(v, channel.partitionSource());
            kept.add(new DecodingVersion(schema, true, Setup.MAX_RECORD_BYTES));
            chars += v.definition().toString().length();
        }
        long bytes = usedAfterGc() - before;
        long estimated = kept.stream().mapToLong(v -> v.bytes).sum();
        return new Result("versions_retained").put("versions", kept.size())
                .put("definition_chars", chars / n).put("retained_kb_per_version", bytes / n / 1024)
                .put("retained_bytes_per_char", bytes / chars).put("estimated_bytes_per_char", estimated / chars);
    }

    private static long usedAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        Runtime rt = Runtime.getRuntime();
        return rt.totalMemory() - rt.freeMemory();
    }
}
