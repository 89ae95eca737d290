package io.streamtables.convert;

import io.streamtables.channel.ChannelDefinition;
import io.streamtables.schema.SchemaSource;
import io.streamtables.schema.VersionCaches;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.UUID;
import java.util.zip.Deflater;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import io.streamtables.bench.Events;
import io.streamtables.bench.Measure;
import io.streamtables.bench.Result;
import io.streamtables.bench.Setup;
import io.streamtables.channel.Channel;
import io.streamtables.schema.ChannelSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.iceberg.data.Record;

/**
 * Stage "parse + validate + convert alone": the convert stage's {@link RecordDecoder} on one thread over the
 * benchmark records, with the compiled fast path and with the reference alone, then each of the reference's three
 * steps alone (with the same Jackson and networknt settings) to show where its time goes; JSON and GSR_JSON.
 */
public final class ConvertBench {

    private static final ObjectReader JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .readerFor(JsonNode.class);

    private ConvertBench() {
    }

    public static List<Result> run(long seed, int n, int hours) {
        byte[][] events = Events.generate(seed, n, hours);
        long jsonBytes = Events.totalBytes(events);
        ChannelSchema schema = Setup.schema();
        Channel channel = Setup.channel("convert");
        List<Result> out = new ArrayList<>();
        // the compiled fast path (the default), then the reference alone (delivery.records.compiled-decoder=false)
        out.add(measure("stage_convert", decoder(channel, schema, true), events, jsonBytes, hours));
        out.add(measure("stage_convert_reference", decoder(channel, schema, false), events, jsonBytes, hours));
        long sink = 0;

        // The reference's three steps alone, on the same records.
        List<JsonNode> docs = new ArrayList<>(n);
        Measure m = Measure.start();
        for (byte[] e : events) {
            docs.add(parse(e));
        }
        m.stop();
        Result parse = new Result("stage_convert_parse");
        m.into(parse, n, jsonBytes);
        out.add(parse);

        Schema validator = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_7,
                b -> b.schemaRegistryConfig(SchemaRegistryConfig.builder().formatAssertionsEnabled(true).build()))
                .getSchema(schema.json());
        validator.initializeValidators();
        for (int i = 0; i < Math.min(n, 30_000); i++) {
            sink += validator.validate(docs.get(i)).size();
        }
        m = Measure.start();
        for (JsonNode d : docs) {
            sink += validator.validate(d).size();
        }
        m.stop();
        Result validate = new Result("stage_convert_validate");
        m.into(validate, n, jsonBytes);
        out.add(validate);

        RowConverter converter = new RowConverter(schema.iceberg(), schema.json());
        m = Measure.start();
        for (JsonNode d : docs) {
            Record r = converter.convert(d);
            sink += r.size();
        }
        m.stop();
        Result convert = new Result("stage_convert_rows");
        m.into(convert, n, jsonBytes);
        out.add(convert);
        convert.put("sink", sink);
        out.addAll(gsr(events, jsonBytes, schema));
        return out;
    }

    /** One decoder over the records after a warm-up, with the share the fast path took. */
    private static Result measure(String scenario, RecordDecoder decoder, byte[][] records, long jsonBytes,
            int hours) {
        long sink = 0;
        // warm-up until C2 has compiled the hot paths (a service decodes millions of records): five passes
        for (int round = 0; round < 5; round++) {
            for (byte[] r : records) {
                sink += decoder.decode(r).size();
            }
        }
        long compiledBefore = decoder.compiledRecords();
        Measure m = Measure.start();
        for (byte[] r : records) {
            sink += decoder.decode(r).size();
        }
        m.stop();
        Result result = new Result(scenario).put("partitions", hours);
        m.into(result, records.length, jsonBytes);
        return result.put("compiled_share", (decoder.compiledRecords() - compiledBefore) / (double) records.length)
                .put("sink", sink);
    }

    /** The convert stage's decoder of a JSON channel, for the floor's variant that decodes as it writes. */
    public static Function<byte[], Record> decoder(ChannelSchema schema) {
        return decoder(Setup.channel("convert"), schema, true)::decode;
    }

    /** A JSON channel's decoder never asks the registry. */
    static RecordDecoder decoder(Channel channel, ChannelSchema schema, boolean compile) {
        return new RecordDecoder(channel, schema, new SchemaSource() {
            public SchemaVersion latest(String arn) {
                throw new UnsupportedOperationException();
            }

            public SchemaVersion version(UUID id) {
                throw new UnsupportedOperationException();
            }
        }, versions(compile));
    }

    /** A stage's built versions, bounded as the services' are by default. */
    static DecodingVersions versions(boolean compile) {
        return new DecodingVersions(new VersionCaches(2000, 64 << 20), compile, Setup.MAX_RECORD_BYTES, 10);
    }

    /**
     * GSR_JSON: the same records in the Glue Schema Registry envelope (uncompressed and zlib), the version
     * resolved as the Glue source does after its first lookup (from its cache).
     */
    static List<Result> gsr(byte[][] events, long jsonBytes, ChannelSchema schema) {
        Channel channel = gsrChannel("convert_gsr");
        UUID version = UUID.randomUUID();
        SchemaSource.SchemaVersion v = new SchemaSource.SchemaVersion(version, channel.schemaArn(), schema.json());
        SchemaSource registry = new SchemaSource() {
            public SchemaVersion latest(String arn) {
                return v;
            }

            public SchemaVersion version(UUID id) {
                return v;
            }
        };
        List<Result> out = new ArrayList<>();
        for (boolean compile : new boolean[] {true, false}) {
            RecordDecoder decoder = new RecordDecoder(channel, schema, registry, versions(compile));
            for (boolean zlib : new boolean[] {false, true}) {
                byte[][] records = new byte[events.length][];
                for (int i = 0; i < events.length; i++) {
                    records[i] = envelope(version, events[i], zlib);
                }
                out.add(measure("stage_convert_gsr" + (zlib ? "_zlib" : "") + (compile ? "" : "_reference"), decoder,
                        records, jsonBytes, 0));
            }
        }
        return out;
    }

    /** A GSR_JSON channel of the bench's schema. */
    static Channel gsrChannel(String table) {
        Channel json = Setup.channel(table);
        ChannelDefinition d = json.definition();
        return Channel.of(new ChannelDefinition(d.channelName(), d.serviceExecutionRoleArn(),
                List.of(new ChannelDefinition.StreamConfiguration(d.stream().streamArn(),
                        new ChannelDefinition.RecordConfiguration("GSR_JSON", json.schemaArn()))),
                d.destination(), null, null, null), Setup.CONFIG);
    }

    static byte[] envelope(UUID version, byte[] body, boolean zlib) {
        byte[] payload = body;
        if (zlib) {
            Deflater deflater = new Deflater();
            deflater.setInput(body);
            deflater.finish();
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            byte[] buf = new byte[4096];
            while (!deflater.finished()) {
                bytes.write(buf, 0, deflater.deflate(buf));
            }
            deflater.end();
            payload = bytes.toByteArray();
        }
        return ByteBuffer.allocate(18 + payload.length).put((byte) 3).put((byte) (zlib ? 5 : 0))
                .putLong(version.getMostSignificantBits()).putLong(version.getLeastSignificantBits()).put(payload)
                .array();
    }

    private static JsonNode parse(byte[] e) {
        try {
            return JSON.readValue(e);
        } catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
