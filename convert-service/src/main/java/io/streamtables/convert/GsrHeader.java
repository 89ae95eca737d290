package io.streamtables.convert;

import com.amazonaws.services.schemaregistry.deserializers.GlueSchemaRegistryDeserializerDataParser;
import io.streamtables.bus.ErrorCode;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.UUID;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * The Glue Schema Registry wire format (SPEC F2), read with the GSR serde library: header version byte 3, a
 * compression byte (0 none, 5 zlib), the 16-byte schema version id, then the body.
 */
final class GsrHeader {

    private static final int LENGTH = 18;
    private static final GlueSchemaRegistryDeserializerDataParser PARSER =
            GlueSchemaRegistryDeserializerDataParser.getInstance();
    // The serde builds (and frees) a zlib stream per record, which costs more than the inflation of a 1 KB body.
    private static final ThreadLocal<Inflater> INFLATERS = ThreadLocal.withInitial(Inflater::new);

    /** Bytes {@code [from, to)} of {@code array}: the body, without copying it out of the record when it is not compressed. */
    record Body(byte[] array, int from, int to) {
    }

    private GsrHeader() {
    }

    /** True when the bytes start with a GSR header the library can read. */
    static boolean present(byte[] data) {
        return data.length > LENGTH && data[0] == 3 && PARSER.isDataCompatible(ByteBuffer.wrap(data), new StringBuilder());
    }

    static UUID schemaVersionId(byte[] data) {
        return PARSER.getSchemaVersionId(ByteBuffer.wrap(data));
    }

    /**
     * The body of a record whose header {@link #present} accepted, decompressed to at most {@code maxBytes}: a zlib
     * body of 10 MiB can inflate to 10 GiB.
     */
    static Body body(byte[] data, int maxBytes) {
        if (!PARSER.isCompressionEnabled(ByteBuffer.wrap(data))) {
            return new Body(data, LENGTH, data.length);
        }
        Inflater inflater = INFLATERS.get();
        inflater.reset();
        inflater.setInput(data, LENGTH, data.length - LENGTH);
        byte[] out = new byte[(int) Math.min(maxBytes + 1L, Math.max(256, (data.length - LENGTH) * 4L))];
        int n = 0;
        try {
            while (!inflater.finished() && n <= maxBytes) {
                if (n == out.length) {
                    out = Arrays.copyOf(out, (int) Math.min(maxBytes + 1L, out.length * 2L));
                }
                int k = inflater.inflate(out, n, out.length - n);
                n += k;
                if (k == 0 && !inflater.finished() && (inflater.needsInput() || inflater.needsDictionary())) {
                    throw undecompressable(); // a truncated stream (the serde's own loop never ends on one)
                }
            }
        } catch (DataFormatException e) {
            throw undecompressable();
        }
        if (n > maxBytes) {
            throw new ConversionException(ErrorCode.DESERIALIZATION_ERROR, null, "record has a Glue Schema Registry "
                    + "body that inflates past the record limit of " + maxBytes + " bytes (delivery.records.max-bytes)");
        }
        return new Body(out, 0, n);
    }

    private static ConversionException undecompressable() {
        return new ConversionException(ErrorCode.DESERIALIZATION_ERROR, null,
                "record has a Glue Schema Registry header but its body cannot be decompressed");
    }
}
