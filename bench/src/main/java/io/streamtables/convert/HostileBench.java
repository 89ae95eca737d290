package io.streamtables.convert;

import io.streamtables.bench.Events;
import io.streamtables.bench.Result;
import io.streamtables.bench.Setup;
import io.streamtables.channel.Channel;
import io.streamtables.schema.ChannelSchema;
import io.streamtables.schema.SchemaSource;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The convert stage's CPU per hostile record, one kind at a time, on one thread (thread CPU time), beside an
 * ordinary record. The bench schema with two more optional fields: {@code amount}, a decimal ({@code multipleOf}), and
 * {@code code}, under a pattern a backtracking engine takes minutes on.
 */
public final class HostileBench {

    private static final String SCHEMA = Events.SCHEMA.replace("\"is_mobile\": {\"type\": \"boolean\"},",
            "\"is_mobile\": {\"type\": \"boolean\"}, \"amount\": {\"type\": \"number\", \"multipleOf\": 0.01}, "
                    + "\"code\": {\"type\": \"string\", \"pattern\": \"^(.*a){12}$\"},");

    private HostileBench() {
    }

    public static List<Result> run(long seed) throws Exception {
        if (SCHEMA.equals(Events.SCHEMA)) {
            throw new IllegalStateException("the bench schema changed: HostileBench.SCHEMA adds nothing");
        }
        ChannelSchema schema = ChannelSchema.of(Setup.JSON.readTree(SCHEMA), Events.PARTITION_FIELD);
        UUID version = UUID.randomUUID();
        RecordDecoder json = ConvertBench.decoder(Setup.channel("hostile"), schema, true);
        RecordDecoder gsr = gsrDecoder(schema, version);
        String ordinary = new String(Events.generate(seed, 1, 24)[0], StandardCharsets.UTF_8);
        String head = ordinary.substring(0, ordinary.length() - 1); // without its closing brace

        Map<String, byte[]> jsonCases = new LinkedHashMap<>();
        jsonCases.put("ordinary", utf8(ordinary));
        jsonCases.put("exponent_1e99999999", utf8(head + ",\"amount\":1e99999999}"));
        jsonCases.put("digits_100000", utf8(head + ",\"n\":" + "7".repeat(100_000) + "}"));
        jsonCases.put("nesting_10000", utf8(head + ",\"n\":" + "[".repeat(10_000) + "]".repeat(10_000) + "}"));
        jsonCases.put("overlong_utf8", bytes(head + ",\"n\":\"", new byte[] {(byte) 0xC0, (byte) 0xAF}, "\"}"));
        jsonCases.put("duplicate_key", utf8(head + ",\"event_type\":\"click\"}"));
        jsonCases.put("lone_surrogate", utf8(head.replaceFirst("\"event_id\":\"", "\"event_id\":\"\\\\ud800")  + "}"));
        jsonCases.put("pattern_(.*a){12}_41_chars", utf8(head + ",\"code\":\"" + "a".repeat(40) + "b\"}"));
        jsonCases.put("string_5MB", utf8(head + ",\"extra\":\"" + "s".repeat(5_000_000) + "\"}"));
        Map<String, byte[]> gsrCases = new LinkedHashMap<>();
        gsrCases.put("gsr_ordinary", ConvertBench.envelope(version, utf8(ordinary), true));
        gsrCases.put("gsr_zlib_bomb_100MiB", ConvertBench.envelope(version, new byte[100 * 1024 * 1024], true));
        gsrCases.put("gsr_unknown_version", ConvertBench.envelope(UUID.randomUUID(), utf8(ordinary), false));
        gsrCases.put("gsr_truncated_header", new byte[] {3, 5, 1, 2});

        List<Result> out = new ArrayList<>();
        jsonCases.forEach((kind, record) -> out.add(measure(kind, json, record)));
        gsrCases.forEach((kind, record) -> out.add(measure(kind, gsr, record)));
        return out;
    }

    /** Thread CPU per record over at least half a second (at least 3 records), after a warm-up of the same. */
    private static Result measure(String kind, RecordDecoder decoder, byte[] record) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        String outcome = decode(decoder, record);
        for (int i = 0; i < 200 && decodeMillis(decoder, record, threads) < 100; i++) {
            // warm-up
        }
        long start = threads.getCurrentThreadCpuTime();
        int n = 0;
        while (n < 3 || threads.getCurrentThreadCpuTime() - start < 500_000_000L) {
            decode(decoder, record);
            n++;
        }
        double micros = (threads.getCurrentThreadCpuTime() - start) / 1000.0 / n;
        return new Result("hostile_" + kind).put("bytes", record.length).put("outcome", outcome)
                .put("cpu_us_per_record", Math.round(micros * 10) / 10.0).put("records", n);
    }

    private static long decodeMillis(RecordDecoder decoder, byte[] record, ThreadMXBean threads) {
        long t = threads.getCurrentThreadCpuTime();
        decode(decoder, record);
        return (threads.getCurrentThreadCpuTime() - t) / 1_000_000;
    }

    private static String decode(RecordDecoder decoder, byte[] record) {
        try {
            decoder.decode(record);
            return "row";
        } catch (ConversionException e) {
            return e.code().name();
        }
    }

    private static RecordDecoder gsrDecoder(ChannelSchema schema, UUID version) {
        Channel channel = ConvertBench.gsrChannel("hostile_gsr");
        SchemaSource.SchemaVersion v = new SchemaSource.SchemaVersion(version, channel.schemaArn(), schema.json());
        return new RecordDecoder(channel, schema, new SchemaSource() {
            public SchemaVersion latest(String arn) {
                return v;
            }

            public SchemaVersion version(UUID id) {
                if (!id.equals(version)) {
                    throw new SchemaNotFoundException("schema version " + id + " not found"); // as cached misses answer
                }
                return v;
            }
        }, ConvertBench.versions(true));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] bytes(String before, byte[] middle, String after) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(utf8(before));
        out.writeBytes(middle);
        out.writeBytes(utf8(after));
        return out.toByteArray();
    }
}
