package io.streamtables.e2e;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Sample events for the channel's schema: valid ones with the row they must become, invalid ones of each kind. */
final class Events {

    static final String SCHEMA = """
            {
              "$schema": "http://json-schema.org/draft-07/schema#",
              "title": "Event",
              "type": "object",
              "properties": {
                "id": {"type": "integer"},
                "event_time": {"type": "string", "format": "date-time"},
                "source": {"type": "string"},
                "count": {"type": "integer", "minimum": 0, "maximum": 1000000},
                "value": {"type": "number"},
                "ok": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "attrs": {"type": "object", "additionalProperties": {"type": "string"}},
                "device": {
                  "type": "object",
                  "properties": {"model": {"type": "string"}, "version": {"type": "integer", "maximum": 100}},
                  "required": ["model"]
                },
                "note": {"type": ["string", "null"]}
              },
              "required": ["id", "event_time", "value"]
            }
            """;

    /** Never allowed in a DLQ object: every invalid record carries it in its payload. */
    static final String SECRET = "SECRET-PAYLOAD";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ZoneOffset[] OFFSETS = {ZoneOffset.UTC, ZoneOffset.ofHoursMinutes(5, 30), ZoneOffset.ofHours(-7)};

    /**
     * @param expectedCode null for a valid event
     * @param row the values the table must hold, for a valid event
     */
    record Event(long id, byte[] data, String partitionKey, String expectedCode, Map<String, Object> row) {
        boolean valid() {
            return expectedCode == null;
        }
    }

    private final Random random;
    private final Instant base;
    private long nextId;

    Events(long seed, long firstId) {
        this.random = new Random(seed);
        this.base = Instant.now().truncatedTo(ChronoUnit.MILLIS).minusSeconds(3 * 3600);
        this.nextId = firstId;
    }

    /** {@code count} events, every {@code invalidEvery}-th one invalid, cycling through the kinds. */
    List<Event> next(int count, int invalidEvery) {
        List<Event> events = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            long id = nextId++;
            events.add(id % invalidEvery == 0 ? invalid(id) : valid(id));
        }
        return events;
    }

    private Event valid(long id) {
        Instant time = base.plusMillis(random.nextInt(3 * 3600 * 1000));
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", id);
        row.put("event_time", time);
        row.put("source", "app-" + random.nextInt(10));
        row.put("count", random.nextInt(1_000_001));
        row.put("value", random.nextDouble() * 1000);
        row.put("ok", random.nextBoolean());
        row.put("tags", List.of("t" + random.nextInt(5), "u" + random.nextInt(5)));
        row.put("attrs", Map.of("region", "r" + random.nextInt(3)));
        Map<String, Object> device = new LinkedHashMap<>();
        device.put("model", "m" + random.nextInt(4));
        device.put("version", random.nextBoolean() ? random.nextInt(101) : null);
        row.put("device", device);
        row.put("note", random.nextInt(4) == 0 ? null : "note " + id);

        Map<String, Object> doc = new LinkedHashMap<>(row);
        doc.put("event_time", DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(
                time.atOffset(OFFSETS[random.nextInt(OFFSETS.length)])));
        if (device.get("version") == null) {
            device = new LinkedHashMap<>(device);
            device.remove("version");
            doc.put("device", device);
        }
        return new Event(id, json(doc), "pk-" + random.nextInt(100_000), null, row);
    }

    private Event invalid(long id) {
        String secret = SECRET + "-" + id;
        String time = "\"" + base.plusSeconds(random.nextInt(3 * 3600)) + "\"";
        int kind = (int) ((id / 7) % 5);
        return switch (kind) {
            case 0 -> new Event(id, utf8("{\"id\": " + id + ", \"event_time\": " + time + ", \"source\": \"" + secret
                    + "\", \"value\": "), "pk-" + id, "DESERIALIZATION_ERROR", null);
            case 1 -> new Event(id, utf8("{\"id\": " + id + ", \"source\": \"" + secret + "\", \"value\": 1.5}"),
                    "pk-" + id, "MISSING_PARTITION_VALUE", null);
            case 2 -> new Event(id, utf8("{\"id\": " + id + ", \"event_time\": " + time + ", \"value\": \"" + secret
                    + "\"}"), "pk-" + id, "SCHEMA_VALIDATION_FAILED", null);
            case 3 -> new Event(id, utf8("{\"id\": 9" + id + "99999999999999999999, \"event_time\": " + time
                    + ", \"source\": \"" + secret + "\", \"value\": 2}"), "pk-" + id, "TYPE_CONVERSION_FAILED", null);
            default -> {
                byte[] body = utf8("{\"id\": " + id + ", \"event_time\": " + time + ", \"source\": \"" + secret
                        + "\", \"value\": 3}");
                byte[] gsr = new byte[18 + body.length];
                gsr[0] = 3;
                gsr[1] = 0;
                System.arraycopy(body, 0, gsr, 18, body.length);
                yield new Event(id, gsr, "pk-" + id, "DESERIALIZATION_ERROR", null);
            }
        };
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] json(Object doc) {
        try {
            return JSON.writeValueAsBytes(doc);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
