package io.streamtables.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.assignableTo;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noFields;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.Test;

/** The rules of the module map (docs/DESIGN.md), on the classes the all-in-one packs: every stage's and common's. */
class ArchitectureTest {

    /** Each stage's packages: a stage reaches another only over the bus and the shared tables. */
    private static final List<List<String>> STAGES = List.of(
            List.of("io.streamtables.controlplane..", "io.streamtables.api..", "io.streamtables.auth..",
                    "io.streamtables.registry.."),
            List.of("io.streamtables.ingest.."),
            List.of("io.streamtables.convert.."),
            List.of("io.streamtables.commit..", "io.streamtables.maintenance.."),
            List.of("io.streamtables.dlq.."));

    /** The protocol module's packages. */
    private static final String[] PROTOCOL = {"io.streamtables.bus..", "io.streamtables.watermarks.."};

    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(location -> !location.contains("-tests.jar")) // common's shared test fixtures
            .importPackages("io.streamtables");

    @Test
    void theClassesOfEveryStageAreImported() {
        for (List<String> stage : STAGES) {
            String pkg = stage.get(0).replace("..", "");
            if (CLASSES.stream().noneMatch(c -> c.getPackageName().startsWith(pkg))) {
                throw new AssertionError("no class of " + pkg + " imported: the rules below would hold vacuously");
            }
        }
    }

    @Test
    void noStageImportsAnother() {
        for (List<String> stage : STAGES) {
            String[] others = STAGES.stream().filter(s -> s != stage).flatMap(List::stream).toArray(String[]::new);
            noClasses().that().resideInAnyPackage(stage.toArray(String[]::new))
                    .should().dependOnClassesThat().resideInAnyPackage(others)
                    .because("a stage reaches another only over the bus and the shared tables")
                    .check(CLASSES);
        }
    }

    /** The protocol module (the stages' contract) is plain Java on Iceberg and Jackson: no framework in it. */
    @Test
    void theProtocolImportsNoFramework() {
        if (CLASSES.stream().noneMatch(c -> c.getPackageName().startsWith("io.streamtables.watermarks"))) {
            throw new AssertionError("no class of the protocol imported: the rule below would hold vacuously");
        }
        classes().that().resideInAnyPackage(PROTOCOL)
                .should().onlyDependOnClassesThat().resideInAnyPackage("io.streamtables.bus..",
                        "io.streamtables.watermarks..", "java..", "org.apache.iceberg..", "com.fasterxml.jackson..")
                .because("the stages' contract is read without Quarkus, CDI or a bus")
                .check(CLASSES);
    }

    @Test
    void commonImportsNoStage() {
        String[] stages = STAGES.stream().flatMap(List::stream).toArray(String[]::new);
        noClasses().that().resideOutsideOfPackages(stages).should().dependOnClassesThat().resideInAnyPackage(stages)
                .because("what every stage shares knows none of them")
                .check(CLASSES);
    }

    @Test
    void noPackageCycle() {
        slices().matching("io.streamtables.(*)..").should().beFreeOfCycles().check(CLASSES);
    }

    /** Threads belong to a service, which starts them and stops them at its shutdown; a static pool never stops. */
    @Test
    void noExecutorInAStaticField() {
        noFields().that().areStatic().should().haveRawType(assignableTo(ExecutorService.class))
                .because("the service that starts threads stops them: an executor is given, not held statically")
                .check(CLASSES);
    }

    /** Periodic work has one way to run: {@code Repeating}, which guards each run, shows it to liveness and stops. */
    @Test
    void periodicWorkRunsOnRepeating() {
        noClasses().that().resideOutsideOfPackage("io.streamtables.tasks..")
                .should().callMethod(Executors.class, "newSingleThreadScheduledExecutor", ThreadFactory.class)
                .orShould().callMethod(Executors.class, "newSingleThreadScheduledExecutor")
                .because("periodic work runs on Repeating: a failed run does not stop it, liveness sees a stuck one")
                .check(CLASSES);
    }
}
