package io.streamtables.bus.kafka;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import io.streamtables.bus.RowChunk;

/**
 * The bus messages on Kafka: CBOR (binary, so record payloads travel without base64), the rows of a
 * {@link RowChunk} as Iceberg's Avro encoding ({@link RowChunkCodec}).
 */
public final class BusCodec {

    public static final ObjectMapper MAPPER = CBORMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES) // a newer producer may add fields
            .addModule(new SimpleModule("bus")
                    .addSerializer(RowChunk.class, new RowChunkCodec.Writer())
                    .addDeserializer(RowChunk.class, new RowChunkCodec.Reader()))
            .build();

    private BusCodec() {
    }
}
