package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.e2e.RandomDocuments.GenDoc;
import io.streamtables.e2e.RandomDocuments.Mutation;
import io.streamtables.e2e.RandomSchemas.GeneratedSchema;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A generated test. From one seed (printed; replay with {@code -Dgenerated.seed=N}): 3 or 4 random JSON
 * Schemas (draft-07, one draft-04) over SPEC table T, one channel each (a 2-shard stream, its own table and DLQ
 * bucket) in one all-in-one process, and at least 400 random documents per schema, about 20 % of them mutated.
 * Every record sent must be read back equal from the table or be found once in the DLQ with a SPEC D3 code — none
 * lost, none twice — no DLQ object may hold payload bytes, and the process must neither die nor log exceptions.
 *
 * <p>Options: {@code -Dgenerated.seed=N}, {@code -Dgenerated.documents=N} (per schema, default 400),
 * {@code -Dgenerated.exclude=OVERLONG_UTF8,...} (mutations not to generate, by {@link Mutation} name). Failures
 * print the seed, the document, the schema fragment and expected against actual values; the schemas, the channels
 * file and the app log stay in {@code target/e2e/generated-*}.
 */
class GeneratedRecordsIT {

    private static final Pattern LOG_LINE = Pattern.compile("^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2},\\d{3} (\\w+)\\s");

    @Test
    void everyGeneratedRecordIsDeliveredOrDeadLetteredExactlyOnce() throws Exception {
        long seed = Long.getLong("generated.seed", new SecureRandom().nextLong());
        int perSchema = Integer.getInteger("generated.documents", 400);
        Set<Mutation> mutations = EnumSet.allOf(Mutation.class);
        String exclude = System.getProperty("generated.exclude", "");
        Arrays.stream(exclude.split(",")).map(String::trim).filter(s -> !s.isEmpty())
                .forEach(s -> mutations.remove(Mutation.valueOf(s)));
        System.out.println("GeneratedRecordsIT: seed " + seed + " (replay with -Dgenerated.seed=" + seed + ")"
                + (exclude.isBlank() ? "" : ", mutations excluded: " + exclude));

        Random random = new Random(seed);
        int schemaCount = 3 + random.nextInt(2);
        int draft4 = random.nextInt(schemaCount);
        List<GeneratedSchema> schemas = new ArrayList<>();
        for (int i = 0; i < schemaCount; i++) {
            schemas.add(RandomSchemas.generate(new Random(seed * 31 + i), i, i == draft4));
        }
        Instant partitionBase = Instant.parse("2020-01-01T00:00:00Z").plus(random.nextInt(6 * 365 * 24), ChronoUnit.HOURS);
        RandomDocuments.Ids ids = new RandomDocuments.Ids(new Random(seed ^ 0x5DEECE66DL));
        List<List<GenDoc>> docs = new ArrayList<>();
        for (GeneratedSchema schema : schemas) {
            Random r = new Random(seed * 7919 + schema.index());
            RandomDocuments generator = new RandomDocuments(schema, r, ids, partitionBase, mutations);
            int count = perSchema + r.nextInt(perSchema / 8 + 1);
            List<GenDoc> list = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                list.add(generator.next(i, r.nextInt(5) == 0));
            }
            docs.add(list);
        }

        long started = System.nanoTime();
        try (GeneratedFixture fixture = new GeneratedFixture(schemas, random, 2);
                AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start()) {
            System.out.println("GeneratedRecordsIT: schemas, channels and the app log are in " + fixture.workDir);
            for (GeneratedFixture.Lane lane : fixture.lanes) {
                System.out.println("  schema " + lane.schema.index() + " " + lane.schema.name()
                        + (lane.schema.draft4() ? " (draft-04)" : " (draft-07)") + ", partition "
                        + lane.schema.partitionField() + ", " + lane.compression + ", DLQ prefix " + lane.dlqPrefix
                        + ", " + lane.schema.root().fields.size() + " top-level fields");
            }
            // the process is ready before its channels are ACTIVE: probe until each channel delivers
            Map<GeneratedFixture.Lane, RandomDocuments> probeSources = new java.util.HashMap<>();
            int[] probeIndex = {-1};
            for (GeneratedFixture.Lane lane : fixture.lanes) {
                probeSources.put(lane, new RandomDocuments(lane.schema, new Random(seed * 104729 + lane.schema.index()),
                        ids, partitionBase, mutations));
            }
            fixture.awaitDelivering(app, lane -> probeSources.get(lane).next(probeIndex[0]--, false), 60);
            int probes = fixture.lanes.stream().mapToInt(l -> l.probes.size()).sum();

            // interleave the lanes in chunks of random size, so that each channel commits several times and the
            // commits of the channels overlap
            int[] next = new int[docs.size()];
            for (boolean any = true; any;) {
                any = false;
                for (int i = 0; i < fixture.lanes.size(); i++) {
                    List<GenDoc> list = docs.get(i);
                    if (next[i] < list.size()) {
                        int to = Math.min(list.size(), next[i] + 20 + random.nextInt(200));
                        fixture.produce(fixture.lanes.get(i), list.subList(next[i], to));
                        next[i] = to;
                        any = true;
                    }
                }
                Thread.sleep(500 + random.nextInt(1500)); // freshness is 2 s: some rounds land in separate commits
            }
            fixture.awaitDelivered(90, app);

            List<String> problems = new ArrayList<>();
            List<String> notes = new ArrayList<>();
            Map<String, Integer> byCode = new TreeMap<>();
            long rows = 0;
            long probeRows = 0;
            long records = 0;
            int commits = 0;
            for (GeneratedFixture.Lane lane : fixture.lanes) {
                GeneratedFixture.Outcome outcome = fixture.verify(lane);
                records += lane.sent.size();
                rows += outcome.rows;
                probeRows += outcome.probeRows;
                commits += outcome.commits;
                outcome.deadLettersByCode.forEach((code, n) -> byCode.merge(code, n, Integer::sum));
                problems.addAll(outcome.problems);
                notes.addAll(outcome.notes);
            }

            // the process never crashed, never restarted, and logged no exception outside WARN lines
            if (!app.isAlive()) {
                problems.add("the all-in-one process died; log:\n" + app.tail());
            }
            if (app.starts() != 1) {
                problems.add("the all-in-one process was started " + app.starts() + " times");
            }
            problems.addAll(exceptionLines(app.log()));

            long mutated = fixture.lanes.stream().flatMap(l -> l.sent.stream()).filter(s -> !s.doc().valid()).count();
            Map<Mutation, Long> byMutation = fixture.lanes.stream().flatMap(l -> l.sent.stream())
                    .filter(s -> !s.doc().valid())
                    .collect(Collectors.groupingBy(s -> s.doc().mutation(), TreeMap::new, Collectors.counting()));
            System.out.println("GeneratedRecordsIT mutations sent: " + byMutation);
            notes.stream().limit(5).forEach(n -> System.out.println("GeneratedRecordsIT note: " + n));
            if (notes.size() > 5) {
                System.out.println("GeneratedRecordsIT note: … and " + (notes.size() - 5) + " more such notes");
            }
            problems.forEach(p -> System.out.println("GeneratedRecordsIT PROBLEM (seed " + seed + "): " + p));
            System.out.printf("GeneratedRecordsIT summary: seed %d, %d schemas, %d records (%d mutated), %d rows, "
                    + "%d dead letters %s, %d commits, %d probes (%d delivered), %d problems, %.1f s%n", seed,
                    schemas.size(), records, mutated, rows - probeRows,
                    byCode.values().stream().mapToInt(Integer::intValue).sum(), byCode, commits, probes, probeRows,
                    problems.size(), (System.nanoTime() - started) / 1e9);
            assertTrue(records >= 1_000, "at least 1 000 records: " + records);
            assertTrue(problems.isEmpty(), "seed " + seed + " (replay with -Dgenerated.seed=" + seed + "): "
                    + problems.size() + " problems, the first:\n" + String.join("\n", problems.subList(0,
                            Math.min(15, problems.size()))));
        }
    }

    /** Lines naming an exception, unless they belong to a WARN log line (its message or its stack trace). */
    static List<String> exceptionLines(String log) {
        List<String> out = new ArrayList<>();
        String level = "";
        for (String line : log.split("\n")) {
            Matcher m = LOG_LINE.matcher(line);
            if (m.find()) {
                level = m.group(1);
                if (level.equals("ERROR") || level.equals("FATAL")) {
                    out.add("log line at " + level + ": " + line);
                    continue;
                }
            }
            if (line.contains("Exception") && !level.equals("WARN")) {
                out.add("log line with an exception (level " + level + "): " + line);
            }
        }
        return out;
    }
}
