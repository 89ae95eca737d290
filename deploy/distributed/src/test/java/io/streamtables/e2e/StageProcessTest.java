package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class StageProcessTest {

    /** A container's options reach its JVM as JAVA_TOOL_OPTIONS: values with spaces and quotes arrive whole. */
    @Test
    void optionsWithSpacesAndQuotesReachTheJvmWhole() throws Exception {
        List<String> options = List.of("-Dplain=1", "-Dspaced=a b  c", "-Dsingle=it's", "-Ddouble=\"so\" it is");
        ProcessBuilder java = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XshowSettings:properties", "-version").redirectErrorStream(true);
        java.environment().put("JAVA_TOOL_OPTIONS",
                String.join(" ", options.stream().map(StageProcess::quoted).toList()));
        Process p = java.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        assertTrue(out.contains("    plain = 1\n"), out);
        assertTrue(out.contains("    spaced = a b  c\n"), out);
        assertTrue(out.contains("    single = it's\n"), out);
        assertTrue(out.contains("    double = \"so\" it is\n"), out);
        assertThrows(IllegalArgumentException.class, () -> StageProcess.quoted("-Dboth=it's \"so\""));
    }
}
