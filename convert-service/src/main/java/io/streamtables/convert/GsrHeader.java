package io.streamtables.convert;

import com.amazonaws.services.schemaregistry.deserializers.GlueSchemaRegistryDeserializerDataParser;
import io.streamtables.bus.ErrorCode;
import io.streamtables.schema.ConversionException;
import java.nio.ByteBuffer;
import java.util.UUID;

/**
 * The Glue Schema Registry wire format (SPEC F2), read with the GSR serde library: header version byte 3, a
 * compression byte (0 none, 5 zlib), the 16-byte schema version id, then the body.
 */
final class GsrHeader {

    private static final int LENGTH = 18;
    private static final GlueSchemaRegistryDeserializerDataParser PARSER =
            GlueSchemaRegistryDeserializerDataParser.getInstance();

    private GsrHeader() {
    }

    /** True when the bytes start with a GSR header the library can read. */
    static boolean present(byte[] data) {
        return data.length > LENGTH && data[0] == 3 && PARSER.isDataCompatible(ByteBuffer.wrap(data), new StringBuilder());
    }

    static UUID schemaVersionId(byte[] data) {
        return PARSER.getSchemaVersionId(ByteBuffer.wrap(data));
    }

    /** The body, decompressed. */
    static byte[] body(byte[] data) {
        try {
            return PARSER.getPlainData(ByteBuffer.wrap(data));
        } catch (RuntimeException e) {
            throw new ConversionException(ErrorCode.DESERIALIZATION_ERROR, null,
                    "record has a Glue Schema Registry header but its body cannot be decompressed");
        }
    }
}
