package io.streamtables.bus.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.streamtables.bus.CommitToken;
import io.streamtables.bus.DlqAck;
import io.streamtables.bus.DlqBatch;
import io.streamtables.bus.ErrorCode;
import io.streamtables.bus.KinesisRecord;
import io.streamtables.bus.RecordChunk;
import io.streamtables.bus.Reject;
import io.streamtables.bus.RewindRequest;
import io.streamtables.bus.RowChunk;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class BusCodecTest {

    private static final CommitToken TOKEN = new CommitToken("arn:aws:kinesis:us-east-1:000000000000:channel/c",
            "arn:aws:kinesis:us-east-1:000000000000:stream/s", "shardId-000000000001", "100", "101", "203");

    // Every type JsonSchemaMapper produces, nested ones included
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "n", Types.IntegerType.get()),
            Types.NestedField.optional(3, "price", Types.DecimalType.of(12, 3)),
            Types.NestedField.optional(4, "ratio", Types.DoubleType.get()),
            Types.NestedField.optional(5, "ok", Types.BooleanType.get()),
            Types.NestedField.optional(6, "name", Types.StringType.get()),
            Types.NestedField.required(7, "ts", Types.TimestampType.withZone()),
            Types.NestedField.optional(8, "day", Types.DateType.get()),
            Types.NestedField.optional(9, "at", Types.TimeType.get()),
            Types.NestedField.optional(10, "uid", Types.UUIDType.get()),
            Types.NestedField.optional(11, "blob", Types.BinaryType.get()),
            Types.NestedField.optional(12, "tags", Types.ListType.ofOptional(13, Types.StringType.get())),
            Types.NestedField.optional(14, "attrs", Types.MapType.ofOptional(15, 16, Types.StringType.get(),
                    Types.LongType.get())),
            Types.NestedField.optional(17, "inner", Types.StructType.of(
                    Types.NestedField.optional(18, "x", Types.DoubleType.get()))));

    private static <T> T roundTrip(Object message, Class<T> type) {
        byte[] bytes = new BusSerializer().serialize("topic", message);
        BusDeserializer deserializer = new BusDeserializer();
        deserializer.configure(Map.of(BusDeserializer.TYPE, type.getName()), false);
        return type.cast(deserializer.deserialize("topic", bytes));
    }

    private static Record row(long id, boolean full) {
        GenericRecord r = GenericRecord.create(SCHEMA);
        r.setField("id", id);
        r.setField("ts", OffsetDateTime.of(2026, 11, 29, 20, 5, 1, 123_456_000, ZoneOffset.UTC));
        if (full) {
            r.setField("n", 7);
            r.setField("price", new BigDecimal("1234.560"));
            r.setField("ratio", 0.25);
            r.setField("ok", true);
            r.setField("name", "zoë ✓");
            r.setField("day", LocalDate.of(2026, 2, 28));
            r.setField("at", LocalTime.of(23, 59, 58, 999_999_000));
            r.setField("uid", UUID.fromString("6f1c5a40-53b7-4d3c-9d7a-1f6a2b3c4d5e"));
            r.setField("blob", ByteBuffer.wrap(new byte[] {0, 1, (byte) 0xff}));
            r.setField("tags", List.of("a", "b"));
            r.setField("attrs", Map.of("k", 1L));
            GenericRecord inner = GenericRecord.create(SCHEMA.findType("inner").asStructType());
            inner.setField("x", -1.5);
            r.setField("inner", inner);
        }
        return r;
    }

    @Test
    void rowChunkKeepsEveryIcebergValueAndTheRejects() {
        Reject reject = new Reject("arn:aws:kinesis:us-east-1:000000000000:stream/s", TOKEN.shardId(), "150", 42L,
                ErrorCode.SCHEMA_VALIDATION_FAILED, "$.id: is missing", "/id");
        RowChunk sent = new RowChunk(TOKEN, List.of(new RowChunk.Row("101", 1000L, row(1, true)),
                new RowChunk.Row("203", 2000L, row(2, false))), List.of(reject));

        RowChunk got = roundTrip(sent, RowChunk.class);

        assertEquals(TOKEN, got.token());
        assertEquals(List.of(reject), got.rejects());
        assertEquals(2, got.rows().size());
        for (int i = 0; i < 2; i++) {
            RowChunk.Row expected = sent.rows().get(i);
            RowChunk.Row actual = got.rows().get(i);
            assertEquals(expected.sequenceNumber(), actual.sequenceNumber());
            assertEquals(expected.arrivalMillis(), actual.arrivalMillis());
            assertEquals(SCHEMA.asStruct(), actual.value().struct());
            for (Types.NestedField f : SCHEMA.columns()) {
                assertEquals(expected.value().getField(f.name()), actual.value().getField(f.name()), f.name());
            }
        }
    }

    /** The decoder's strings and map keys are Avro Utf8; they cross the bus and come back as Strings. */
    @Test
    void rowChunkTakesTheDecodersUtf8Strings() {
        Record r = row(1, true);
        r.setField("name", new org.apache.avro.util.Utf8("zoë ✓"));
        r.setField("tags", List.of(new org.apache.avro.util.Utf8("a"), new org.apache.avro.util.Utf8("b")));
        r.setField("attrs", Map.of(new org.apache.avro.util.Utf8("k"), 1L));
        RowChunk got = roundTrip(new RowChunk(TOKEN, List.of(new RowChunk.Row("101", 1000L, r)), List.of()),
                RowChunk.class);
        Record value = got.rows().get(0).value();
        assertEquals("zoë ✓", value.getField("name"));
        assertEquals(List.of("a", "b"), value.getField("tags"));
        assertEquals(Map.of("k", 1L), value.getField("attrs"));
    }

    /** Records of two schema versions in one chunk keep each its own schema, in order. */
    @Test
    void rowChunkOfTwoSchemaVersionsKeepsEachRowsSchema() {
        Schema v1 = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
        Schema v2 = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "note", Types.StringType.get()));
        GenericRecord a = GenericRecord.create(v1);
        a.setField("id", 1L);
        GenericRecord b = GenericRecord.create(v2);
        b.setField("id", 2L);
        b.setField("note", "two");
        GenericRecord c = GenericRecord.create(v1);
        c.setField("id", 3L);
        RowChunk got = roundTrip(new RowChunk(TOKEN, List.of(new RowChunk.Row("1", 1L, a), new RowChunk.Row("2", 2L, b),
                new RowChunk.Row("3", 3L, c)), List.of()), RowChunk.class);

        assertEquals(List.of(v1.asStruct(), v2.asStruct(), v1.asStruct()),
                got.rows().stream().map(r -> r.value().struct()).toList());
        assertEquals(List.of(1L, 2L, 3L), got.rows().stream().map(r -> r.value().getField("id")).toList());
        assertEquals("two", got.rows().get(1).value().getField("note"));
        assertEquals(List.of("1", "2", "3"), got.rows().stream().map(RowChunk.Row::sequenceNumber).toList());
    }

    @Test
    void rowChunkWithOnlyRejects() {
        RowChunk got = roundTrip(new RowChunk(TOKEN, List.of(), List.of()), RowChunk.class);
        assertEquals(TOKEN, got.token());
        assertEquals(List.of(), got.rows());
    }

    @Test
    void recordChunkCarriesPayloadBytesUnchanged() {
        byte[] payload = "{\"id\":1}".getBytes(StandardCharsets.UTF_8);
        RecordChunk got = roundTrip(new RecordChunk(TOKEN, List.of(new KinesisRecord("101", 5L, payload))),
                RecordChunk.class);
        assertEquals(TOKEN, got.token());
        assertArrayEquals(payload, got.records().get(0).data());
        assertEquals(5L, got.records().get(0).arrivalMillis());
    }

    @Test
    void smallMessagesRoundTrip() {
        DlqBatch batch = new DlqBatch(TOKEN.channelArn(), "errors/x.jsonl", List.of(new Reject(
                "arn:aws:kinesis:us-east-1:000000000000:stream/s", "shardId-000000000000", "101", 5L,
                ErrorCode.SCHEMA_VALIDATION_FAILED, "/id: required", "/id")));
        assertEquals(batch, roundTrip(batch, DlqBatch.class));
        DlqAck stored = DlqAck.stored(batch);
        assertEquals(stored, roundTrip(stored, DlqAck.class));
        assertEquals("errors/x.jsonl@101", roundTrip(stored, DlqAck.class).version());
        DlqAck refused = DlqAck.failed(batch, "the DLQ bucket refused a write", true);
        assertEquals(refused, roundTrip(refused, DlqAck.class));
        RewindRequest rewind = new RewindRequest(TOKEN, null);
        assertEquals(rewind, roundTrip(rewind, RewindRequest.class));
    }

    @Test
    void chunksAreKeyedByChannelAndShard() {
        ProducerRecord<Object, Object> keyed = new ShardKeys().onSend(new ProducerRecord<>("rows",
                new RowChunk(TOKEN, List.of(), List.of())));
        assertEquals(TOKEN.channelArn() + "/" + TOKEN.shardId(), keyed.key());
        assertEquals("rows", keyed.topic());
        assertNull(new ShardKeys().onSend(new ProducerRecord<>("x", "not a bus message")).key());
    }

    @Test
    void garbageIsRefusedWithoutEchoingIt() {
        BusDeserializer deserializer = new BusDeserializer();
        deserializer.configure(Map.of(BusDeserializer.TYPE, RecordChunk.class.getName()), false);
        SerializationException e = assertThrows(SerializationException.class,
                () -> deserializer.deserialize("records", "secret-payload".getBytes(StandardCharsets.UTF_8)));
        assertEquals(-1, e.getMessage().indexOf("secret"), e.getMessage());
    }
}
