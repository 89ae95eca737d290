package io.streamtables.maintenance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;

/**
 * The files a metadata version's snapshots reach: manifest lists, manifests, data and delete files. Read before and
 * after an expiration, their difference is what only the expired snapshots held; the orphan cleanup keeps what
 * they reach. Manifests never change once written, so one instance reads each only once per maintenance run.
 */
final class SnapshotFiles {

    private final Table table;
    private final Map<String, List<ManifestFile>> manifestLists = new HashMap<>();
    private final Map<String, List<String>> manifestEntries = new HashMap<>();

    SnapshotFiles(Table table) {
        this.table = table;
    }

    Set<String> of(TableMetadata metadata) {
        Set<String> files = new HashSet<>();
        Set<String> manifests = new HashSet<>();
        for (Snapshot snapshot : metadata.snapshots()) {
            String list = snapshot.manifestListLocation();
            if (list != null) {
                files.add(list);
            }
            List<ManifestFile> all = list == null ? snapshot.allManifests(table.io())
                    : manifestLists.computeIfAbsent(list, l -> snapshot.allManifests(table.io()));
            for (ManifestFile manifest : all) {
                if (manifests.add(manifest.path())) {
                    files.add(manifest.path());
                    files.addAll(manifestEntries.computeIfAbsent(manifest.path(), path -> entries(manifest)));
                }
            }
        }
        return files;
    }

    private List<String> entries(ManifestFile manifest) {
        List<String> files = new ArrayList<>();
        try {
            if (manifest.content() == ManifestContent.DATA) {
                try (ManifestReader<DataFile> reader = ManifestFiles.read(manifest, table.io(), table.specs())) {
                    reader.forEach(f -> files.add(f.location()));
                }
            } else {
                try (ManifestReader<DeleteFile> reader = ManifestFiles.readDeleteManifest(manifest, table.io(),
                        table.specs())) {
                    reader.forEach(f -> files.add(f.location()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }
}
