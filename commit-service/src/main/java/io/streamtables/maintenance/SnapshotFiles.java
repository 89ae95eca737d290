package io.streamtables.maintenance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashSet;
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
 * after an expiration, their difference is what only the expired snapshots held.
 */
final class SnapshotFiles {

    private SnapshotFiles() {
    }

    static Set<String> of(Table table, TableMetadata metadata) {
        Set<String> files = new HashSet<>();
        Set<String> manifests = new HashSet<>();
        for (Snapshot snapshot : metadata.snapshots()) {
            if (snapshot.manifestListLocation() != null) {
                files.add(snapshot.manifestListLocation());
            }
            for (ManifestFile manifest : snapshot.allManifests(table.io())) {
                if (manifests.add(manifest.path())) {
                    files.add(manifest.path());
                    entries(table, manifest, files);
                }
            }
        }
        return files;
    }

    private static void entries(Table table, ManifestFile manifest, Set<String> files) {
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
    }
}
