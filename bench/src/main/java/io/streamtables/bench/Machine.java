package io.streamtables.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** What the numbers were measured on. */
final class Machine {

    private Machine() {
    }

    static String describe() {
        String cpu = "?";
        try {
            for (String l : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (l.startsWith("model name")) {
                    cpu = l.substring(l.indexOf(':') + 1).trim();
                    break;
                }
            }
        } catch (IOException e) {
            // not Linux
        }
        long memKb = Measure.statusKb(Path.of("/proc/meminfo"), "MemTotal:");
        return Runtime.getRuntime().availableProcessors() + " cores (" + cpu + "), " + (memKb / 1024 / 1024) + " GiB RAM, "
                + System.getProperty("os.name") + " " + System.getProperty("os.version") + ", Java "
                + System.getProperty("java.vm.version") + " (" + System.getProperty("java.vm.name") + ")";
    }

    static double loadAverage() {
        try {
            List<String> l = Files.readAllLines(Path.of("/proc/loadavg"));
            return Double.parseDouble(l.get(0).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
