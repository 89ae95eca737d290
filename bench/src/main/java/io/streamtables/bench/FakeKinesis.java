package io.streamtables.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import com.fasterxml.jackson.dataformat.cbor.CBORGenerator;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.streamtables.commit.CommitBench;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * The in-process source of the pipeline benchmark: a minimal Kinesis endpoint (the SDK's CBOR protocol:
 * DescribeStreamSummary, ListShards, GetShardIterator, GetRecords) that serves records held in memory, with no
 * emulator in between. Record {@code g} of the data is in shard {@code g % shards} at position {@code g / shards};
 * only records below the gate are visible, so a warm-up part can be served and committed before the measured
 * part is released. It notes when records of a released part were first served, and when each shard's reader came
 * back after its last record (the chunk was taken). Any stream asked for is served that data, but for the streams
 * made {@link #live}: one shard each, holding what the bench {@link #append appends} as it runs.
 */
public final class FakeKinesis implements AutoCloseable {

    private static final ObjectMapper CBOR = new ObjectMapper(new CBORFactory());
    private static final CBORFactory FACTORY = new CBORFactory();
    /** The start of a GetRecords answer: a map, its key "Records" and the start of the array. */
    private static final byte[] RECORDS_HEAD = recordsHead();

    private final int shards;
    /** Each record as a GetRecords answer carries it: a CBOR map of its sequence number, data and partition key. */
    private final byte[][] data;
    private final String streamName;
    private final HttpServer server;
    private final ExecutorService pool = Executors.newFixedThreadPool(8, r -> {
        Thread t = new Thread(r, "fake-kinesis");
        t.setDaemon(true);
        return t;
    });
    private volatile int gate;
    /** Per shard: when its reader asked again after reaching the gate. */
    private final long[] doneAt;
    private long firstServedAt;
    final AtomicLong calls = new AtomicLong();
    final AtomicLong getRecordsCalls = new AtomicLong();
    final AtomicLong served = new AtomicLong();
    /** The live streams by name: each record as a GetRecords answer carries it, with its arrival. */
    private final Map<String, List<byte[]>> live = new ConcurrentHashMap<>();

    /**
     * @param records how many records the stream holds; {@code record.apply(g)} is record {@code g}'s payload,
     *     asked for once: each record is kept already encoded as a GetRecords answer carries it, so that an
     *     answer is copied together, not encoded, on the cores the pipeline runs on
     */
    public FakeKinesis(String streamName, int shards, int records, IntFunction<byte[]> record, int gate)
            throws IOException {
        this.streamName = streamName;
        this.shards = shards;
        this.data = new byte[records][];
        for (int g = 0; g < records; g++) {
            data[g] = encode(CommitBench.sequence(g % shards, g / shards), record.apply(g), "pk-" + g / shards, 0);
        }
        this.gate = gate;
        this.doneAt = new long[shards];
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
        server.createContext("/", this::handle);
        server.setExecutor(pool);
        server.start();
    }

    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Makes records below {@code newGate} visible and restarts the "served" and "taken" clocks. */
    public synchronized void release(int newGate) {
        java.util.Arrays.fill(doneAt, 0);
        firstServedAt = 0;
        gate = newGate;
    }

    /** When a GetRecords call first answered records of the part released last; 0 before. */
    public synchronized long firstServedAtMillis() {
        return firstServedAt;
    }

    /**
     * When the last shard's last chunk was taken by the pipeline, at the latest: its reader's next call (a reader
     * calls again once it has handed the chunk on, and no sooner than 200 ms after its previous call, so this is
     * up to 200 ms late for a chunk handed on faster). -1 while some shard is not done.
     */
    public synchronized long takenAtMillis() {
        long max = 0;
        for (int s = 0; s < shards; s++) {
            if (visible(s) > 0 && doneAt[s] == 0) {
                return -1;
            }
            max = Math.max(max, doneAt[s]);
        }
        return max;
    }

    /** From now on, {@code streamName} is one shard holding only what {@link #append} adds. */
    public void live(String streamName) {
        live.putIfAbsent(streamName, Collections.synchronizedList(new ArrayList<>()));
    }

    /** Adds a record to a live stream, arriving now. */
    public void append(String streamName, byte[] payload) {
        List<byte[]> records = live.get(streamName);
        synchronized (records) {
            records.add(encode(CommitBench.sequence(0, records.size()), payload, "pk", System.currentTimeMillis()));
        }
    }

    /** A record's CBOR map; {@code arrivalMillis}, when not 0, as the SDK reads a CBOR timestamp (epoch ms). */
    private static byte[] encode(String sequence, byte[] payload, String partitionKey, long arrivalMillis) {
        ByteArrayOutputStream one = new ByteArrayOutputStream(payload.length + 100);
        try (CBORGenerator c = FACTORY.createGenerator(one)) {
            c.writeStartObject();
            c.writeStringField("SequenceNumber", sequence);
            c.writeFieldName("Data");
            c.writeBinary(payload);
            c.writeStringField("PartitionKey", partitionKey);
            if (arrivalMillis != 0) {
                c.writeNumberField("ApproximateArrivalTimestamp", arrivalMillis);
            }
            c.writeEndObject();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return one.toByteArray();
    }

    private int visible(int shard) {
        int g = gate;
        return g <= shard ? 0 : (g - shard + shards - 1) / shards;
    }

    private void handle(HttpExchange x) throws IOException {
        try (x) {
            calls.incrementAndGet();
            String target = x.getRequestHeaders().getFirst("X-Amz-Target");
            JsonNode req = CBOR.readTree(x.getRequestBody().readAllBytes());
            String op = target == null ? "" : target.substring(target.indexOf('.') + 1);
            ByteArrayOutputStream body = new ByteArrayOutputStream(1024);
            try (CBORGenerator g = FACTORY.createGenerator(body)) {
                switch (op) {
                    case "DescribeStreamSummary" -> describe(g, req);
                    case "ListShards" -> listShards(g);
                    case "GetShardIterator" -> iterator(g, req);
                    case "GetRecords" -> {
                        body = new ByteArrayOutputStream(1 << 20);
                        getRecords(req, body);
                    }
                    default -> {
                        x.sendResponseHeaders(400, -1);
                        return;
                    }
                }
            }
            x.getResponseHeaders().set("Content-Type", "application/x-amz-cbor-1.1");
            x.sendResponseHeaders(200, body.size());
            try (OutputStream out = x.getResponseBody()) {
                body.writeTo(out);
            }
        } catch (RuntimeException e) {
            e.printStackTrace();
            x.sendResponseHeaders(500, -1);
        }
    }

    /** Any stream asked for is this one's shards and records (the abuse bench's idle channels read one each). */
    private void describe(CBORGenerator g, JsonNode req) throws IOException {
        String arn = req.path("StreamARN").asText(Setup.streamArn(streamName));
        g.writeStartObject();
        g.writeFieldName("StreamDescriptionSummary");
        g.writeStartObject();
        g.writeStringField("StreamName", arn.substring(arn.lastIndexOf('/') + 1));
        g.writeStringField("StreamARN", arn);
        g.writeStringField("StreamStatus", "ACTIVE");
        g.writeNumberField("RetentionPeriodHours", 24);
        g.writeNumberField("OpenShardCount", shards);
        g.writeEndObject();
        g.writeEndObject();
    }

    private void listShards(CBORGenerator g) throws IOException {
        g.writeStartObject();
        g.writeFieldName("Shards");
        g.writeStartArray();
        java.math.BigInteger max = java.math.BigInteger.ONE.shiftLeft(128).subtract(java.math.BigInteger.ONE);
        java.math.BigInteger step = max.divide(java.math.BigInteger.valueOf(shards));
        for (int s = 0; s < shards; s++) {
            g.writeStartObject();
            g.writeStringField("ShardId", CommitBench.shardId(s));
            g.writeFieldName("HashKeyRange");
            g.writeStartObject();
            g.writeStringField("StartingHashKey", step.multiply(java.math.BigInteger.valueOf(s)).toString());
            g.writeStringField("EndingHashKey", s == shards - 1 ? max.toString()
                    : step.multiply(java.math.BigInteger.valueOf(s + 1)).subtract(java.math.BigInteger.ONE).toString());
            g.writeEndObject();
            g.writeFieldName("SequenceNumberRange");
            g.writeStartObject();
            g.writeStringField("StartingSequenceNumber", CommitBench.sequence(s, 0));
            g.writeEndObject();
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    private void iterator(CBORGenerator g, JsonNode req) throws IOException {
        int shard = shardIndex(req.path("ShardId").asText());
        long position = 0;
        if ("AFTER_SEQUENCE_NUMBER".equals(req.path("ShardIteratorType").asText())) {
            String seq = req.path("StartingSequenceNumber").asText();
            position = Long.parseLong(seq.substring(seq.length() - 20)) + 1;
        }
        String arn = req.path("StreamARN").asText(req.path("StreamName").asText());
        g.writeStartObject();
        g.writeStringField("ShardIterator", arn.substring(arn.lastIndexOf('/') + 1) + "|" + shard + ":" + position);
        g.writeEndObject();
    }

    private void getRecords(JsonNode req, ByteArrayOutputStream body) throws IOException {
        getRecordsCalls.incrementAndGet();
        String iterator = req.path("ShardIterator").asText();
        String stream = iterator.substring(0, iterator.indexOf('|'));
        String[] it = iterator.substring(stream.length() + 1).split(":");
        int shard = Integer.parseInt(it[0]);
        int position = Integer.parseInt(it[1]);
        int limit = req.path("Limit").asInt(10_000);
        List<byte[]> liveRecords = live.get(stream);
        if (liveRecords != null) {
            getLiveRecords(stream, liveRecords, position, limit, body);
            return;
        }
        int visible = visible(shard);
        int end = Math.min(visible, position + limit);
        if (position >= visible) {
            synchronized (this) {
                if (doneAt[shard] == 0 && visible > 0) {
                    doneAt[shard] = System.currentTimeMillis();
                }
            }
        } else {
            synchronized (this) {
                if (firstServedAt == 0) {
                    firstServedAt = System.currentTimeMillis();
                }
            }
        }
        answer(body, position, end, p -> data[p * shards + shard], stream + "|" + shard + ":" + Math.max(position, end),
                end < visible);
    }

    private void getLiveRecords(String stream, List<byte[]> records, int position, int limit,
            ByteArrayOutputStream body) throws IOException {
        List<byte[]> page;
        int size;
        synchronized (records) {
            size = records.size();
            page = List.copyOf(records.subList(Math.min(position, size), Math.min(size, position + limit)));
        }
        int end = position + page.size();
        answer(body, position, end, p -> page.get(p - position), stream + "|0:" + Math.max(position, end), end < size);
    }

    /**
     * {"Records": [the records' encoded maps], "NextShardIterator": ..., "MillisBehindLatest": ...}, with
     * indefinite-length map and array as Jackson writes them.
     */
    private void answer(ByteArrayOutputStream body, int position, int end, IntFunction<byte[]> record, String next,
            boolean behind) throws IOException {
        ByteArrayOutputStream tail = new ByteArrayOutputStream(64);
        try (CBORGenerator g = FACTORY.createGenerator(tail)) {
            g.writeStartObject();
            g.writeStringField("NextShardIterator", next);
            g.writeNumberField("MillisBehindLatest", behind ? 1000 : 0);
            g.writeEndObject();
        }
        body.write(RECORDS_HEAD);
        for (int p = position; p < end; p++) {
            body.write(record.apply(p));
        }
        body.write(0xFF); // the end of the Records array
        byte[] rest = tail.toByteArray();
        body.write(rest, 1, rest.length - 1); // the tail's fields and its map's end close the answer's map
        served.addAndGet(Math.max(0, end - position));
    }

    private static byte[] recordsHead() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            CBORGenerator g = FACTORY.createGenerator(out);
            g.writeStartObject();
            g.writeFieldName("Records");
            g.writeStartArray();
            g.flush();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    private static int shardIndex(String shardId) {
        return Integer.parseInt(shardId.substring(shardId.indexOf('-') + 1));
    }

    @Override
    public void close() {
        server.stop(0);
        pool.shutdownNow();
    }
}
