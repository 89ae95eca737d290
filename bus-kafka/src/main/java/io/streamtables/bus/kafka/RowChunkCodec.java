package io.streamtables.bus.kafka;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import io.streamtables.bus.CommitToken;
import io.streamtables.bus.Reject;
import io.streamtables.bus.RowChunk;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.avro.AvroSchemaUtil;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.avro.DataWriter;
import org.apache.iceberg.data.avro.PlannedDataReader;
import org.apache.iceberg.types.Types;

/**
 * A {@link RowChunk} on the wire: the token, the rejects, the Iceberg schema of the rows (JSON, once per chunk; a
 * chunk whose records named several schema versions has each, and the index of its schema per row),
 * and the rows' values as consecutive Avro datums written and read by Iceberg's own generic Avro code, so every
 * Iceberg type (decimals, timestamps, nested structs, ...) round-trips without a hand-written mapping.
 */
final class RowChunkCodec {

    private static final Map<Types.StructType, Encoding> WRITERS = new ConcurrentHashMap<>();
    private static final Map<String, Decoding> READERS = new ConcurrentHashMap<>();
    private static final int MAX_CACHED = 256;

    private RowChunkCodec() {
    }

    private record Encoding(String schemaJson, DataWriter<Record> writer) {
        static Encoding of(Types.StructType struct) {
            Schema schema = new Schema(struct.fields());
            return new Encoding(SchemaParser.toJson(schema), DataWriter.create(AvroSchemaUtil.convert(schema, "row")));
        }
    }

    private record Decoding(PlannedDataReader<Record> reader) {
        static Decoding of(String schemaJson) {
            Schema schema = SchemaParser.fromJson(schemaJson);
            PlannedDataReader<Record> reader = PlannedDataReader.create(schema);
            reader.setSchema(AvroSchemaUtil.convert(schema, "row"));
            return new Decoding(reader);
        }
    }

    private static <K, V> V cached(Map<K, V> cache, K key, java.util.function.Function<K, V> create) {
        if (cache.size() > MAX_CACHED) {
            cache.clear(); // schemas change rarely; a bound keeps a long-lived service from growing
        }
        return cache.computeIfAbsent(key, create);
    }

    static final class Writer extends StdSerializer<RowChunk> {
        Writer() {
            super(RowChunk.class);
        }

        @Override
        public void serialize(RowChunk chunk, JsonGenerator out, SerializerProvider provider) throws IOException {
            out.writeStartObject();
            out.writeNumberField("version", chunk.version());
            out.writeObjectField("token", chunk.token());
            if (!chunk.rows().isEmpty()) {
                // rows of one schema version as a rule; a chunk whose records named several has a schema each
                List<Encoding> encodings = new ArrayList<>(1);
                Map<Types.StructType, Integer> indexes = new IdentityHashMap<>();
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(bytes, null);
                String[] sequences = new String[chunk.rows().size()];
                long[] arrivals = new long[sequences.length];
                int[] schemaOf = new int[sequences.length];
                for (int i = 0; i < sequences.length; i++) {
                    RowChunk.Row row = chunk.rows().get(i);
                    sequences[i] = row.sequenceNumber();
                    arrivals[i] = row.arrivalMillis();
                    Types.StructType struct = row.value().struct();
                    Integer index = indexes.get(struct);
                    if (index == null) {
                        index = encodings.size();
                        indexes.put(struct, index);
                        encodings.add(cached(WRITERS, struct, Encoding::of));
                    }
                    schemaOf[i] = index;
                    Encoding encoding = encodings.get(index);
                    synchronized (encoding) { // Iceberg's writers keep per-write state
                        encoding.writer().write(row.value(), encoder);
                    }
                }
                encoder.flush();
                if (encodings.size() == 1) {
                    out.writeStringField("schema", encodings.get(0).schemaJson());
                } else {
                    out.writeArrayFieldStart("schemas");
                    for (Encoding e : encodings) {
                        out.writeString(e.schemaJson());
                    }
                    out.writeEndArray();
                    out.writeObjectField("schemaOf", schemaOf);
                }
                out.writeObjectField("sequences", sequences);
                out.writeObjectField("arrivals", arrivals);
                out.writeBinaryField("values", bytes.toByteArray());
            }
            out.writeObjectField("rejects", chunk.rejects());
            out.writeEndObject();
        }
    }

    static final class Reader extends StdDeserializer<RowChunk> {
        Reader() {
            super(RowChunk.class);
        }

        @Override
        public RowChunk deserialize(JsonParser in, DeserializationContext context) throws IOException {
            JsonNode node = in.readValueAsTree();
            CommitToken token = context.readTreeAsValue(node.get("token"), CommitToken.class);
            List<Reject> rejects = node.hasNonNull("rejects") ? Arrays.asList(
                    context.readTreeAsValue(node.get("rejects"), Reject[].class)) : List.of();
            List<RowChunk.Row> rows = new ArrayList<>();
            List<Decoding> decodings = new ArrayList<>(1);
            if (node.hasNonNull("schema")) {
                decodings.add(cached(READERS, node.get("schema").asText(), Decoding::of));
            } else if (node.hasNonNull("schemas")) {
                node.get("schemas").forEach(schema -> decodings.add(cached(READERS, schema.asText(), Decoding::of)));
            }
            if (!decodings.isEmpty()) {
                BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(node.get("values").binaryValue(), null);
                JsonNode sequences = node.get("sequences");
                JsonNode arrivals = node.get("arrivals");
                JsonNode schemaOf = node.get("schemaOf");
                for (int i = 0; i < sequences.size(); i++) {
                    Decoding decoding = decodings.get(schemaOf == null ? 0 : schemaOf.get(i).asInt());
                    Record value;
                    synchronized (decoding) {
                        value = decoding.reader().read(null, decoder);
                    }
                    rows.add(new RowChunk.Row(sequences.get(i).asText(), arrivals.get(i).asLong(), value));
                }
            }
            return new RowChunk(node.get("version").asInt(), token, rows, rejects);
        }
    }
}
