package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The alert rules in deploy/prometheus load ({@code promtool check rules}) and each fires on the series
 * that should fire it and not on the others ({@code promtool test rules alerts-test.yml}), with Debian's promtool
 * (installed by scripts/tools.sh).
 */
class AlertRulesTest {

    static final Path RULES = Path.of("../prometheus");

    @Test
    void theRulesLoadAndFireAsTheirTestsSay() throws Exception {
        String check = promtool("check", "rules", "alerts.yml");
        assertTrue(check.contains("SUCCESS: 6 rules found"), check);
        String test = promtool("test", "rules", "alerts-test.yml");
        assertTrue(test.contains("SUCCESS"), test);
    }

    static String promtool(String... args) throws IOException, InterruptedException {
        assertTrue(Files.isExecutable(Path.of("/usr/bin/promtool")), "promtool is missing: run scripts/tools.sh");
        Process p = new ProcessBuilder(concat("/usr/bin/promtool", args)).directory(RULES.toFile())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "promtool did not end");
        assertEquals(0, p.exitValue(), "promtool " + String.join(" ", args) + ":\n" + out);
        return out;
    }

    private static List<String> concat(String first, String... rest) {
        List<String> all = new java.util.ArrayList<>(List.of(first));
        all.addAll(List.of(rest));
        return all;
    }
}
