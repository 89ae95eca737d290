package io.streamtables.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every requirement id the repository cites ({@code SPEC C4}, {@code SPEC S2, S2b}, {@code SPEC F2/F3})
 * is defined in docs/REQUIREMENTS.md, every file that document names exists, and every test method it cites
 * ({@code path/FooTest.java#method}) is declared in that file.
 */
class RequirementsTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern CITATION = Pattern.compile(
            "SPEC ([A-Z]\\d{0,2}[a-z]?\\b(?:(?:, | and |/)[A-Z]\\d{1,2}[a-z]?\\b)*)");
    private static final Pattern ID = Pattern.compile("[A-Z]\\d{0,2}[a-z]?");
    /** A requirement's row: {@code | C4 | ...}. */
    private static final Pattern ROW = Pattern.compile("(?m)^\\| ([A-Z]\\d{0,2}[a-z]?) \\|");
    private static final Pattern FILE = Pattern.compile("`([\\w./-]+/src/(?:main|test)/[\\w./-]+\\.(?:java|sql|properties))");
    /** A cited test method: {@code `path/FooTest.java#method`}. */
    private static final Pattern METHOD = Pattern.compile("`([\\w./-]+/src/test/[\\w./-]+\\.java)#(\\w+)`");
    private static final Set<String> SKIPPED = Set.of("target", ".git", "node_modules", ".peers", "results", "data",
            ".mvn");

    @Test
    void everyCitedRequirementIsDefinedAndEveryNamedFileExists() throws IOException {
        String requirements = Files.readString(ROOT.resolve("docs/REQUIREMENTS.md"));
        Set<String> defined = new TreeSet<>();
        Matcher row = ROW.matcher(requirements);
        while (row.find()) {
            defined.add(row.group(1));
        }
        Map<String, String> undefined = new TreeMap<>();
        int citations = 0;
        for (Path file : scannedFiles()) {
            Matcher m = CITATION.matcher(read(file));
            while (m.find()) {
                Matcher id = ID.matcher(m.group(1));
                while (id.find()) {
                    citations++;
                    if (!defined.contains(id.group())) {
                        undefined.putIfAbsent(id.group(), ROOT.relativize(file).toString());
                    }
                }
            }
        }
        assertTrue(citations > 50, "only " + citations + " citations found under " + ROOT);
        assertEquals(Map.of(), undefined, "ids cited (and where first) that docs/REQUIREMENTS.md does not define");

        Set<String> missing = new TreeSet<>();
        Matcher file = FILE.matcher(requirements);
        while (file.find()) {
            if (!Files.exists(ROOT.resolve(file.group(1)))) {
                missing.add(file.group(1));
            }
        }
        assertEquals(Set.of(), missing, "files docs/REQUIREMENTS.md names that do not exist");
    }

    @Test
    void everyCitedTestMethodIsDeclaredInItsFile() throws IOException {
        String requirements = Files.readString(ROOT.resolve("docs/REQUIREMENTS.md"));
        Set<String> undeclared = new TreeSet<>();
        int cited = 0;
        Matcher m = METHOD.matcher(requirements);
        while (m.find()) {
            cited++;
            Path file = ROOT.resolve(m.group(1));
            if (!Files.exists(file) || !declares(read(file), m.group(2))) {
                undeclared.add(m.group(1) + "#" + m.group(2));
            }
        }
        assertTrue(cited > 50, "only " + cited + " test methods cited in docs/REQUIREMENTS.md");
        assertEquals(Set.of(), undeclared, "test methods docs/REQUIREMENTS.md cites that their file does not declare");
    }

    /** A method declaration at the start of a line (modifiers and annotations allowed), not a call. */
    static boolean declares(String source, String method) {
        return Pattern.compile("(?m)^\\s*+(?:@\\w+(?:\\([^)]*\\))?\\s+)*(?:(?:public|protected|private|static|final)\\s+)*"
                + "(?!return\\b|new\\b|throw\\b|else\\b)[\\w<>\\[\\]][\\w<>\\[\\], ?]*\\s+" + Pattern.quote(method)
                + "\\s*\\(").matcher(source).find();
    }

    @Test
    void aCallIsNotADeclaration() {
        String source = "class T {\n    @Test\n    void declared() {\n        return called();\n        x = called2();\n    }\n}";
        assertTrue(declares(source, "declared"));
        assertTrue(!declares(source, "called"), "a call after return");
        assertTrue(!declares(source, "called2"), "a call in an assignment");
        assertTrue(!declares(source, "absent"));
    }

    /**
     * The sources and documents under the root; the skipped folders are not entered (a container's root file system
     * under .peers holds files no one may read).
     */
    private static List<Path> scannedFiles() throws IOException {
        List<Path> found = new ArrayList<>();
        Files.walkFileTree(ROOT, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
                return SKIPPED.contains(dir.getFileName().toString()) ? FileVisitResult.SKIP_SUBTREE
                        : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                String name = file.getFileName().toString();
                if (attributes.isRegularFile() && !name.equals("REQUIREMENTS.md")
                        && name.matches(".*\\.(java|md|properties|sh|ya?ml|sql|py|js)")) {
                    found.add(file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        return found;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
