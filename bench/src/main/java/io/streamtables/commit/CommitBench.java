package io.streamtables.commit;

import io.streamtables.bench.Events;
import io.streamtables.bench.Measure;
import io.streamtables.bench.Result;
import io.streamtables.bench.Setup;
import io.streamtables.bus.CommitToken;
import io.streamtables.bus.RowChunk;
import io.streamtables.channel.Channel;
import io.streamtables.schema.ChannelSchema;
import io.streamtables.watermarks.ManifestWorkers;
import io.streamtables.watermarks.ShardWatermarks;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.Record;

/**
 * Stage "Parquet write + commit alone": the commit stage's own classes ({@link ChannelBuffer},
 * {@link TableCommitter}) fed already-converted rows in chunks of one shard each, as GetRecords returns them,
 * then one cut and its exactly-once commit. Single-threaded, like the floor.
 */
public final class CommitBench {

    private static final ManifestWorkers MANIFESTS = ManifestWorkers.start(2);

    private CommitBench() {
    }

    public static Result run(Path dir, long seed, int n, int hours, int shards, int chunkRows) {
        byte[][] events = Events.generate(seed, n, hours);
        long jsonBytes = Events.totalBytes(events);
        ChannelSchema schema = Setup.schema();
        List<Record> rows = FloorBench.convert(events, schema);
        Catalog catalog = Setup.catalog(dir);
        List<RowChunk> warmChunks = chunks(Setup.channel("commit_warm_" + hours), rows.subList(0,
                Math.min(rows.size(), 50_000)), shards, chunkRows);
        deliver(catalog, Setup.channel("commit_warm_" + hours), schema, warmChunks);

        Channel channel = Setup.channel("commit_" + hours);
        List<RowChunk> chunks = chunks(channel, rows, shards, chunkRows);
        Measure m = Measure.start();
        PendingCommit cut = deliver(catalog, channel, schema, chunks);
        m.stop();

        Result r = new Result("stage_write_commit").put("partitions", hours).put("shards", shards);
        m.into(r, rows.size(), jsonBytes);
        r.put("files", cut.files().size());
        r.put("avg_file_mb", cut.files().stream().mapToLong(DataFile::fileSizeInBytes).average().orElse(0) / 1048576.0);
        return r;
    }

    private static PendingCommit deliver(Catalog catalog, Channel channel, ChannelSchema schema, List<RowChunk> chunks) {
        Table table = TableOpener.open(catalog, false, channel, schema.iceberg(), schema.versionId());
        ChannelBuffer buffer = new ChannelBuffer(channel, table,
                ShardWatermarks.committed(table, channel.streamArn().toString()));
        for (RowChunk c : chunks) {
            buffer.append(c);
        }
        PendingCommit cut = buffer.cut();
        if (!ShardWatermarks.commit(catalog.loadTable(channel.table()), cut, MANIFESTS)) {
            throw new IllegalStateException("nothing committed");
        }
        buffer.committed(cut);
        return cut;
    }

    /** Record i goes to shard i % shards; each shard's records are cut into chunks of {@code chunkRows}. */
    static List<RowChunk> chunks(Channel channel, List<Record> rows, int shards, int chunkRows) {
        List<List<RowChunk.Row>> perShard = new ArrayList<>();
        for (int s = 0; s < shards; s++) {
            perShard.add(new ArrayList<>());
        }
        for (int i = 0; i < rows.size(); i++) {
            int s = i % shards;
            perShard.get(s).add(new RowChunk.Row(sequence(s, perShard.get(s).size()), 0L, rows.get(i)));
        }
        List<RowChunk> out = new ArrayList<>();
        int[] pos = new int[shards];
        String[] previous = new String[shards];
        boolean more = true;
        while (more) {
            more = false;
            for (int s = 0; s < shards; s++) {
                List<RowChunk.Row> all = perShard.get(s);
                if (pos[s] >= all.size()) {
                    continue;
                }
                more = true;
                List<RowChunk.Row> part = all.subList(pos[s], Math.min(all.size(), pos[s] + chunkRows));
                pos[s] += part.size();
                String first = part.get(0).sequenceNumber();
                String last = part.get(part.size() - 1).sequenceNumber();
                out.add(new RowChunk(new CommitToken(channel.arn(), channel.streamArn().toString(), shardId(s),
                        previous[s], first, last), part, List.of()));
                previous[s] = last;
            }
        }
        return out;
    }

    public static String shardId(int s) {
        return String.format("shardId-%012d", s);
    }

    /** Fixed-width decimal sequence numbers, growing within a shard, like Kinesis'. */
    public static String sequence(int shard, long index) {
        return String.format("49%04d%020d", shard, index);
    }
}
