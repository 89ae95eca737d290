package io.streamtables.e2e;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.Deflater;

/**
 * A hostile corpus for the events schema with two more fields: {@code price} (a decimal: number with
 * {@code multipleOf}) and {@code code} (a string with a pattern a backtracking engine takes minutes on). Each record
 * carries {@link Events#SECRET} where it can, so that a payload byte in the DLQ or the log shows.
 */
final class HostileEvents {

    static final String SCHEMA = Events.SCHEMA.replace("""
                "note": {"type": ["string", "null"]}
            """, """
                "note": {"type": ["string", "null"]},
                "price": {"type": "number", "multipleOf": 0.01},
                "code": {"type": "string", "pattern": "^(.*a){12}$"}
            """);

    private static final String DES = "DESERIALIZATION_ERROR";

    private final Instant base = Instant.now().truncatedTo(ChronoUnit.SECONDS).minusSeconds(3600);
    private long nextId;

    HostileEvents(long firstId) {
        this.nextId = firstId;
        if (SCHEMA.equals(Events.SCHEMA)) {
            throw new IllegalStateException("the events schema changed: HostileEvents.SCHEMA adds nothing");
        }
    }

    /** Every kind once: what a producer nobody controls may send. */
    List<Events.Event> corpus() {
        List<Events.Event> out = new ArrayList<>();
        String time = "\"event_time\": \"" + base + "\"";
        String secret = Events.SECRET;
        // not UTF-8: an overlong '/', a lone continuation byte, a raw NUL in a string
        out.add(invalid(DES, bytes("{\"id\": %d, " + time + ", \"value\": 1, \"source\": \"" + secret + "\u0001\"}",
                (byte) 0xC0, (byte) 0xAF)));
        out.add(invalid(DES, bytes("{\"id\": %d, " + time + ", \"value\": 1, \"source\": \"" + secret + "\u0001\"}",
                (byte) 0x80)));
        out.add(invalid(DES, bytes("{\"id\": %d, " + time + ", \"value\": 1, \"source\": \"" + secret + "\u0001\"}",
                (byte) 0x00)));
        // an unpaired surrogate, escaped
        out.add(invalid(DES, "{\"id\": %d, " + time + ", \"value\": 1, \"source\": \"" + secret + "\\ud800\"}"));
        // numbers: a huge exponent on a decimal column (multipleOf divides by it), 100 000 digits
        out.add(invalid("TYPE_CONVERSION_FAILED", "{\"id\": %d, " + time + ", \"value\": 1, \"source\": \"" + secret
                + "\", \"price\": 1e99999999}"));
        out.add(invalid(DES, "{\"id\": %d, " + time + ", \"source\": \"" + secret + "\", \"value\": "
                + "7".repeat(100_000) + "}"));
        // 10 000-deep nesting
        out.add(invalid(DES, "{\"id\": %d, " + time + ", \"value\": 1, \"source\": \"" + secret + "\", \"attrs\": "
                + "[".repeat(10_000) + "]".repeat(10_000) + "}"));
        // a member twice
        out.add(invalid(DES, "{\"id\": %d, " + time + ", \"value\": 1, \"source\": \"" + secret + "\", \"source\": \"b\"}"));
        // the catastrophic pattern
        out.add(invalid("SCHEMA_VALIDATION_FAILED", "{\"id\": %d, " + time + ", \"value\": 1, \"source\": \"" + secret
                + "\", \"code\": \"" + "a".repeat(40) + "b\"}"));
        // Glue Schema Registry bytes with a zlib bomb (100 MiB of spaces) on a JSON channel, and a truncated header
        out.add(invalidBytes(DES, gsrBomb()));
        out.add(invalidBytes(DES, new byte[] {3, 5, 1, 2}));
        // what must still be delivered: an escaped NUL, a 900 KB string, odd but valid time offsets
        out.add(valid("{\"id\": %d, \"event_time\": \"2026-11-30T10:00:00Z\", \"value\": 1.5, \"source\": \"a\\u0000b\"}",
                Map.of("source", "a\u0000b", "event_time", Instant.parse("2026-11-30T10:00:00Z"), "value", 1.5)));
        String big = "n".repeat(900_000);
        out.add(valid("{\"id\": %d, \"event_time\": \"2026-11-30T10:00:00Z\", \"value\": 2.5, \"note\": \"" + big + "\"}",
                Map.of("note", big, "value", 2.5)));
        for (String[] offset : new String[][] {{"2026-11-30T23:30:00+14:00", "2026-11-30T09:30:00Z"},
                {"2026-11-30T01:15:00-12:00", "2026-11-30T13:15:00Z"}, {"2026-11-30T10:00:00.123456789+05:45",
                    "2026-11-30T04:15:00.123456Z"}, {"2026-11-30t10:00:00z", "2026-11-30T10:00:00Z"}}) {
            out.add(valid("{\"id\": %d, \"event_time\": \"" + offset[0] + "\", \"value\": 3.5}",
                    Map.of("event_time", Instant.parse(offset[1]), "value", 3.5)));
        }
        return out;
    }

    /** Valid events, each in an hour of its own: a producer that spreads records over {@code hours} partitions. */
    List<Events.Event> spreadOverHours(int hours) {
        List<Events.Event> out = new ArrayList<>();
        Instant first = Instant.parse("2020-01-01T00:30:00Z");
        for (int h = 0; h < hours; h++) {
            Instant t = first.plus(h, ChronoUnit.HOURS);
            out.add(valid("{\"id\": %d, \"event_time\": \"" + t + "\", \"value\": 4.5}", Map.of("event_time", t)));
        }
        return out;
    }

    private Events.Event invalid(String code, String json) {
        long id = nextId++;
        return new Events.Event(id, json.replace("%d", Long.toString(id)).getBytes(StandardCharsets.UTF_8),
                "pk-" + id, code, null);
    }

    private Events.Event invalidBytes(String code, byte[] data) {
        long id = nextId++;
        return new Events.Event(id, data, "pk-" + id, code, null);
    }

    private Events.Event valid(String json, Map<String, Object> values) {
        long id = nextId++;
        Map<String, Object> row = new LinkedHashMap<>(values);
        row.put("id", id);
        return new Events.Event(id, json.replace("%d", Long.toString(id)).getBytes(StandardCharsets.UTF_8),
                "pk-" + id, null, row);
    }

    /** The JSON text with {@code inject} put in place of the first \u0001 (bytes no Java string holds). */
    private byte[] bytes(String json, byte... inject) {
        long id = nextId; // consumed by invalidBytes below
        byte[] text = json.replace("%d", Long.toString(id)).getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte b : text) {
            if (b == 1) {
                out.write(inject, 0, inject.length);
            } else {
                out.write(b);
            }
        }
        return out.toByteArray();
    }

    private Events.Event invalid(String code, byte[] data) {
        return invalidBytes(code, data);
    }

    private static byte[] gsrBomb() {
        Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION);
        byte[] spaces = new byte[100 * 1024 * 1024];
        java.util.Arrays.fill(spaces, (byte) ' ');
        deflater.setInput(spaces);
        deflater.finish();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        byte[] buf = new byte[64 * 1024];
        while (!deflater.finished()) {
            body.write(buf, 0, deflater.deflate(buf));
        }
        ByteArrayOutputStream record = new ByteArrayOutputStream();
        record.write(3);
        record.write(5);
        record.write(new byte[16], 0, 16);
        record.writeBytes(body.toByteArray());
        return record.toByteArray();
    }
}
