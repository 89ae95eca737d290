package io.streamtables.bench;

import io.streamtables.bus.Sequences;
import io.streamtables.watermarks.ShardWatermarks;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.catalog.Catalog;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResultEntry;

/**
 * End to end with kinesis-local: a 4-shard stream, the packaged all-in-one reading it at a freshness interval,
 * a producer sending the benchmark records with PutRecords at a steady rate. Freshness lag of a record = the
 * timestamp of the first committed snapshot whose watermark for the record's shard reaches its sequence number,
 * minus the time its PutRecords call returned.
 */
final class EndToEndBench {

    private EndToEndBench() {
    }

    record Sent(String shardId, String sequence, long putStart, long putDone) {
    }

    static Result run(Path dir, Path app, String endpoint, long seed, int freshness, int seconds, int rate, int batch)
            throws Exception {
        String stream = "bench-e2e-" + freshness + "-" + Long.toString(System.currentTimeMillis(), 36);
        Result r = new Result("e2e").put("freshness_s", freshness).put("target_rate", rate).put("batch", batch);
        // the SDK's default socket timeout, as before
        try (KinesisClient kinesis = Setup.kinesis(endpoint, java.time.Duration.ofSeconds(30))) {
            Setup.createStream(kinesis, stream, 4);
            AppSetup setup = new AppSetup(dir, stream, freshness, endpoint, 2500);
            List<Sent> sent = new ArrayList<>();
            long produceStart;
            long produceEnd;
            try (AllInOne aio = AllInOne.start(app, dir, "1g", List.of(), setup.config)) {
                Thread.sleep(1000); // the readers are positioned at the channel's activation
                produceStart = System.currentTimeMillis();
                long next = produceStart;
                long i = 0;
                long calls = 0;
                long callMillis = 0;
                while (System.currentTimeMillis() - produceStart < seconds * 1000L) {
                    long wait = next - System.currentTimeMillis();
                    if (wait > 0) {
                        Thread.sleep(wait);
                    }
                    List<PutRecordsRequestEntry> entries = new ArrayList<>(batch);
                    for (int k = 0; k < batch; k++, i++) {
                        entries.add(PutRecordsRequestEntry.builder()
                                .data(SdkBytes.fromByteArrayUnsafe(Events.event(seed, i, 24)))
                                .partitionKey("pk-" + i).build());
                    }
                    while (!entries.isEmpty()) {
                        long start = System.currentTimeMillis();
                        List<PutRecordsRequestEntry> request = entries;
                        PutRecordsResponse response = kinesis.putRecords(b -> b.streamName(stream).records(request));
                        long done = System.currentTimeMillis();
                        calls++;
                        callMillis += done - start;
                        List<PutRecordsRequestEntry> retry = new ArrayList<>();
                        for (int k = 0; k < request.size(); k++) {
                            PutRecordsResultEntry e = response.records().get(k);
                            if (e.errorCode() != null) {
                                retry.add(request.get(k));
                            } else {
                                sent.add(new Sent(e.shardId(), e.sequenceNumber(), start, done));
                            }
                        }
                        entries = retry;
                    }
                    next += batch * 1000L / rate;
                }
                produceEnd = System.currentTimeMillis();
                r.put("records", sent.size());
                r.put("produce_seconds", (produceEnd - produceStart) / 1000.0);
                r.put("records_per_s", sent.size() / ((produceEnd - produceStart) / 1000.0));
                r.put("put_call_ms_mean", calls == 0 ? 0 : callMillis / (double) calls);

                Map<String, String> expected = new java.util.HashMap<>();
                for (Sent s : sent) {
                    expected.merge(s.shardId(), s.sequence(), Sequences::max);
                }
                Catalog catalog = setup.catalog();
                long deadline = System.currentTimeMillis() + (freshness + 120) * 1000L;
                boolean delivered = false;
                while (!delivered && System.currentTimeMillis() < deadline) {
                    Thread.sleep(1000);
                    try {
                        Map<String, String> wm = ShardWatermarks.committed(catalog.loadTable(setup.table), setup.streamArn);
                        delivered = expected.entrySet().stream()
                                .allMatch(e -> Sequences.atOrBelow(e.getValue(), wm.get(e.getKey())));
                    } catch (org.apache.iceberg.exceptions.NoSuchTableException notYet) {
                        // first commit pending
                    }
                }
                r.put("delivered", delivered);
                r.put("delivered_seconds", (System.currentTimeMillis() - produceStart) / 1000.0);
                r.put("rss_peak_mb", aio.rssPeakKb() / 1024.0);
                // The commit stage's part of the lag: from the cut's first append to its commit (its log line).
                List<Long> inCommit = aio.commitFreshnessMillis();
                double[] c = inCommit.stream().mapToDouble(v -> v / 1000.0).sorted().toArray();
                if (c.length > 0) {
                    r.put("commit_stage_wait_p50_s", pct(c, 50)).put("commit_stage_wait_max_s", c[c.length - 1]);
                }
                aio.close();
                AppSetup.Stats stats = AppSetup.stats(catalog, setup.table, setup.streamArn, 0);
                stats.into(r, "");
                lags(r, sent, stats.commits);
            }
        }
        return r;
    }

    /**
     * Lags of every record, and of the records put after the first commit landed (steady state: the first
     * commit of a fresh all-in-one also creates the table and runs cold, unjitted code).
     */
    private static void lags(Result r, List<Sent> sent, List<AppSetup.Commit> commits) {
        long firstCommit = commits.isEmpty() ? Long.MAX_VALUE : commits.get(0).timestampMillis();
        List<Double> all = new ArrayList<>();
        List<Double> steady = new ArrayList<>();
        List<Double> fromStart = new ArrayList<>();
        for (Sent s : sent) {
            for (AppSetup.Commit c : commits) {
                if (Sequences.atOrBelow(s.sequence(), c.watermarks().get(s.shardId()))) {
                    double lag = (c.timestampMillis() - s.putDone()) / 1000.0;
                    all.add(lag);
                    fromStart.add((c.timestampMillis() - s.putStart()) / 1000.0);
                    if (s.putStart() > firstCommit) {
                        steady.add(lag);
                    }
                    break;
                }
            }
        }
        r.put("lag_records", all.size());
        r.put("lag_steady_records", steady.size());
        put(r, "lag_all_", all);
        put(r, "lag_from_put_start_", fromStart);
        put(r, "lag_", steady.isEmpty() ? all : steady);
    }

    private static void put(Result r, String prefix, List<Double> values) {
        if (values.isEmpty()) {
            return;
        }
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        r.put(prefix + "p50_s", pct(v, 50)).put(prefix + "p90_s", pct(v, 90)).put(prefix + "p99_s", pct(v, 99))
                .put(prefix + "max_s", v[v.length - 1]);
    }

    static double pct(double[] sorted, double p) {
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    /** kinesis-local 0.6.2 (installed by scripts/peers.sh under .peers/) as a child process on a free port. */
    static final class KinesisLocal implements AutoCloseable {
        final Process process;
        final String endpoint;

        KinesisLocal(Path repo, Path log) throws Exception {
            Path main = repo.resolve(".peers/node_modules/kinesis-local/main.js");
            if (!Files.exists(main)) {
                throw new IllegalStateException(main + " is missing: run scripts/peers.sh start once (it installs it)");
            }
            int port;
            int tls;
            try (ServerSocket a = new ServerSocket(0); ServerSocket b = new ServerSocket(0)) {
                port = a.getLocalPort();
                tls = b.getLocalPort();
            }
            ProcessBuilder pb = new ProcessBuilder("node", main.toString()).redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            Map<String, String> env = pb.environment();
            env.put("KINESIS_MOCK_CERT_PATH", repo.resolve(".peers/node_modules/kinesis-local/server.json").toString());
            env.put("KINESIS_MOCK_PLAIN_PORT", Integer.toString(port));
            env.put("KINESIS_MOCK_TLS_PORT", Integer.toString(tls));
            env.put("SHARD_LIMIT", "100");
            env.put("CREATE_STREAM_DURATION", "0ms");
            env.put("DELETE_STREAM_DURATION", "0ms");
            env.put("LOG_LEVEL", "WARN");
            process = pb.start();
            endpoint = "http://127.0.0.1:" + port;
            for (int i = 0; i < 240; i++) {
                try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
                    return;
                } catch (java.io.IOException notYet) {
                    Thread.sleep(250);
                }
            }
            throw new IllegalStateException("kinesis-local did not start; see " + log);
        }

        @Override
        public void close() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }
}
