package io.streamtables.commit;

import io.streamtables.bench.Events;
import io.streamtables.bench.Measure;
import io.streamtables.bench.Result;
import io.streamtables.bench.Setup;
import io.streamtables.channel.Channel;
import io.streamtables.convert.ConvertBench;
import io.streamtables.convert.RowConverter;
import io.streamtables.schema.ChannelSchema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.util.StructLikeMap;

/**
 * The floor: Iceberg's own Parquet writer ({@link GenericParquetWriter} through a {@link DataWriter} per hour
 * partition), single-threaded, writing already-converted rows into an hour-partitioned ZSTD table with the
 * delivery table's properties, then one append commit. Nothing of this project's write path is used.
 *
 * <p>With {@code decode}, the same thread also decodes each record with the convert stage's decoder (UTF-8 check,
 * parse, validation, conversion) just before writing it: the work the pipeline cannot leave out, without reading
 * from Kinesis, threads or hand-offs. Its CPU against the floor's bounds the pipeline's ratio from below.
 */
public final class FloorBench {

    private FloorBench() {
    }

    public static Result run(Path dir, long seed, int n, int hours, int warmRows, boolean decode) {
        byte[][] events = Events.generate(seed, n, hours);
        long jsonBytes = Events.totalBytes(events);
        ChannelSchema schema = Setup.schema();
        IntFunction<Record> row = rows(events, schema, decode);
        events = null;
        String name = decode ? "floor_convert" : "floor";
        Catalog catalog = Setup.catalog(dir);
        Channel channel = Setup.channel(name + "_" + hours);
        Table warm = create(catalog, Setup.channel(name + "_warm_" + hours), schema.iceberg());
        for (int done = 0; done < warmRows; done += n) { // the same warm-up as the pipeline's
            write(warm, Math.min(n, warmRows - done), row);
        }

        Table table = create(catalog, channel, schema.iceberg());
        Measure m = Measure.start();
        List<DataFile> files = write(table, n, row);
        AppendFiles append = table.newAppend();
        files.forEach(append::appendFile);
        append.commit();
        m.stop();

        Result r = new Result(name).put("partitions", hours);
        m.into(r, n, jsonBytes);
        r.put("files", files.size());
        r.put("avg_file_mb", files.stream().mapToLong(DataFile::fileSizeInBytes).average().orElse(0) / 1048576.0);
        r.put("parquet_mb", files.stream().mapToLong(DataFile::fileSizeInBytes).sum() / 1048576.0);
        return r;
    }

    /** Row i: decoded from event i when asked for, or converted beforehand. */
    private static IntFunction<Record> rows(byte[][] events, ChannelSchema schema, boolean decode) {
        if (decode) {
            Function<byte[], Record> decoder = ConvertBench.decoder(schema);
            return i -> decoder.apply(events[i]);
        }
        return convert(events, schema)::get;
    }

    /** JSON → Iceberg rows with the project's converter (no validation): the floor starts after conversion. */
    public static List<Record> convert(byte[][] events, ChannelSchema schema) {
        RowConverter converter = new RowConverter(schema.iceberg(), schema.json());
        List<Record> rows = new ArrayList<>(events.length);
        try {
            for (byte[] e : events) {
                rows.add(converter.convert(Setup.JSON.readTree(e)));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return rows;
    }

    static Table create(Catalog catalog, Channel channel, Schema schema) {
        return catalog.buildTable(channel.table(), schema)
                .withPartitionSpec(PartitionSpec.builderFor(schema).hour(channel.partitionSource()).build())
                .withProperties(Map.copyOf(TableOpener.properties(channel)))
                .create();
    }

    /** Writes rows 0 to count - 1 (each asked for once, in order) and closes the files. */
    static List<DataFile> write(Table table, int count, IntFunction<Record> rows) {
        PartitionSpec spec = table.spec();
        PartitionKey key = new PartitionKey(spec, table.schema());
        InternalRecordWrapper wrapper = new InternalRecordWrapper(table.schema().asStruct());
        OutputFileFactory files = OutputFileFactory.builderFor(table, 1, 1).format(FileFormat.PARQUET).build();
        StructLikeMap<DataWriter<Record>> writers = StructLikeMap.create(spec.partitionType());
        try {
            for (int i = 0; i < count; i++) {
                Record row = rows.apply(i);
                key.partition(wrapper.wrap(row));
                DataWriter<Record> writer = writers.get(key);
                if (writer == null) {
                    PartitionKey partition = key.copy();
                    writer = Parquet.writeData(files.newOutputFile(spec, partition))
                            .forTable(table)
                            .withPartition(partition)
                            .createWriterFunc(GenericParquetWriter::create)
                            .overwrite()
                            .build();
                    writers.put(partition, writer);
                }
                writer.write(row);
            }
            List<DataFile> out = new ArrayList<>();
            for (DataWriter<Record> w : writers.values()) {
                w.close();
                out.add(w.toDataFile());
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
