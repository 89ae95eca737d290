package io.streamtables.bench;

import io.streamtables.commit.CommitBench;
import io.streamtables.commit.FloorBench;
import io.streamtables.convert.ConvertBench;
import io.streamtables.convert.HostileBench;
import io.streamtables.convert.VersionsBench;
import io.streamtables.dlq.DlqBench;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** One scenario in its own JVM (forked by {@link Bench}); prints one {@code RESULT} line per result. */
public final class Scenario {

    private Scenario() {
    }

    public static void main(String[] args) throws Exception {
        String name = args[0];
        Map<String, String> p = new HashMap<>();
        for (int i = 1; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            p.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        Path dir = Path.of(p.get("dir"));
        long seed = Long.parseLong(p.getOrDefault("seed", "42"));
        int n = Integer.parseInt(p.getOrDefault("n", "100000"));
        int hours = Integer.parseInt(p.getOrDefault("hours", "24"));
        int shards = Integer.parseInt(p.getOrDefault("shards", "4"));
        List<Result> results = switch (name) {
            case "floor" -> List.of(FloorBench.run(dir, seed, n, hours,
                    Integer.parseInt(p.getOrDefault("warm", "50000")), Boolean.parseBoolean(p.get("decode"))));
            case "convert" -> ConvertBench.run(seed, n, hours);
            case "hostile" -> HostileBench.run(seed);
            case "versions" -> VersionsBench.run(seed, Integer.parseInt(p.getOrDefault("versions", "2000")),
                    Integer.parseInt(p.getOrDefault("rounds", "5")));
            case "commit" -> List.of(CommitBench.run(dir, seed, n, hours, shards,
                    Integer.parseInt(p.getOrDefault("chunk", "10000"))));
            case "dlq" -> DlqBench.run(dir, Integer.parseInt(p.getOrDefault("batches", "200")),
                    Integer.parseInt(p.getOrDefault("per_batch", "1000")), p.get("s3"));
            case "pipeline" -> List.of(PipelineBench.run(dir, Path.of(p.get("app")), seed, n,
                    Integer.parseInt(p.getOrDefault("warm", "30000")), shards, hours,
                    Integer.parseInt(p.getOrDefault("freshness", "10")), p.getOrDefault("xmx", "1g"),
                    jvm(p.getOrDefault("jvm", "")), p.containsKey("jfr") ? Path.of(p.get("jfr")) : null,
                    !"reference".equals(p.get("decoder")), Integer.parseInt(p.getOrDefault("limit", "10000"))));
            case "e2e" -> List.of(EndToEndBench.run(dir, Path.of(p.get("app")), p.get("kinesis"), seed,
                    Integer.parseInt(p.getOrDefault("freshness", "1")), Integer.parseInt(p.getOrDefault("seconds", "30")),
                    Integer.parseInt(p.getOrDefault("rate", "300")), Integer.parseInt(p.getOrDefault("batch", "100"))));
            case "dist" -> List.of(DistributedBench.run(dir, Path.of(p.get("app")), Path.of(p.get("services")),
                    p.get("kinesis"), p.get("kafka"), p.get("postgres"), Integer.parseInt(p.getOrDefault("instances", "0")),
                    seed, Integer.parseInt(p.getOrDefault("backlog", "100000")),
                    Integer.parseInt(p.getOrDefault("rate", "1000")), Integer.parseInt(p.getOrDefault("seconds", "30")),
                    Integer.parseInt(p.getOrDefault("freshness", "1"))));
            case "soak" -> List.of(SoakBench.run(dir, Path.of(p.get("app")), seed,
                    Integer.parseInt(p.getOrDefault("seconds", "900")), Integer.parseInt(p.getOrDefault("rate", "400")),
                    shards, hours, Boolean.parseBoolean(p.get("maintenance")), p.getOrDefault("xmx", "1g")));
            case "abuse" -> AbuseBench.run(dir, Path.of(p.get("app")), Integer.parseInt(p.getOrDefault("connections",
                    "600")), Integer.parseInt(p.getOrDefault("seconds", "15")));
            case "channels" -> List.of(ChannelsBench.run(dir, Path.of(p.get("app")), p.containsKey("services")
                    ? new ChannelsBench.Distributed(Path.of(p.get("services")), p.get("kafka"), p.get("postgres")) : null,
                    Integer.parseInt(p.getOrDefault("channels", "1000")), Integer.parseInt(p.getOrDefault("seconds", "30")),
                    p.getOrDefault("xmx", "2g"), Integer.parseInt(p.getOrDefault("active-freshness", "10")),
                    Integer.parseInt(p.getOrDefault("active-rate", "2"))));
            default -> throw new IllegalArgumentException("unknown scenario " + name);
        };
        for (Result r : results) {
            System.out.println(r.line());
        }
        System.out.flush();
        System.exit(0);
    }

    /** JVM options given as one space-separated argument. */
    static List<String> jvm(String options) {
        return options.isBlank() ? List.of() : List.of(options.trim().split("\\s+"));
    }
}
