package io.streamtables.commit;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.bus.DlqBatch;
import io.streamtables.watermarks.ShardWatermarks;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.InputFile;
import org.jboss.logging.Logger;

/**
 * The way dead letters take to the DLQ: through the table. A cut's rejects are staged in a file of the table's
 * metadata folder, the commit names the file in its snapshot summary (per shard, {@code delivery.dead-letters}), and
 * only once the commit landed are they published to dlq-service; the file is deleted when every batch is
 * acknowledged. So only committed cuts ever reach a DLQ object, and all writers of one object write the same entries:
 * its key derives from the first reject after the watermark the commit started from, and one commit only moves a
 * shard from there. A commit whose publication never happened (its instance crashed or was paused) is published by
 * the next writer of the shard, or by any instance's sweep, from the staged file (docs/DESIGN.md).
 */
final class DeadLetterOutbox {

    private static final Logger LOG = Logger.getLogger(DeadLetterOutbox.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<List<DlqBatch>> BATCHES = new TypeReference<>() {
    };

    /** Stores dead-letter batches in the DLQ; returns once each is acknowledged as stored. */
    interface Dlq {
        /** @throws DeadLettersRefusedException when the bucket refuses the service's writes */
        void store(List<DlqBatch> batches);
    }

    /** The DLQ bucket refuses the service's writes: retrying cannot help. */
    static final class DeadLettersRefusedException extends IllegalStateException {
        DeadLettersRefusedException(String message) {
            super(message);
        }
    }

    private final Table table;
    private final Dlq dlq;
    /** Staged files known to be in the DLQ: published here, or found deleted by their publisher. */
    private final Set<String> settled = new HashSet<>();
    /** Files another writer staged that were still there at the last sweep. */
    private Set<String> seenAtLastSweep = Set.of();

    DeadLetterOutbox(Table table, Dlq dlq) {
        this.table = table;
        this.dlq = dlq;
    }

    /** Writes the batches to a new file of the table's metadata folder; returns its location. */
    String stage(List<DlqBatch> batches) {
        String location = ((HasTableOperations) table).operations()
                .metadataFileLocation("dead-letters-" + UUID.randomUUID() + ".json");
        try (OutputStream out = table.io().newOutputFile(location).create()) {
            JSON.writeValue(out, batches);
        } catch (IOException e) {
            throw new UncheckedIOException("staging dead letters in " + location + " failed", e);
        }
        return location;
    }

    /** Publishes a committed cut's batches, then deletes their staged file. */
    void publish(String staged, List<DlqBatch> batches) {
        dlq.store(batches);
        settle(staged);
    }

    /** The staged file of a cut that will not be committed. */
    void discard(String staged) {
        settle(staged);
    }

    /**
     * Before a commit replaces the entries of these shards (of its stream): publishes the staged files they name that
     * are not in the DLQ yet (committed by a writer that did not publish them).
     */
    void publishStranded(Map<String, String> entries, Set<String> shards) {
        for (String shard : shards) {
            String staged = entries.get(shard);
            if (staged != null) {
                publishIfStaged(staged);
            }
        }
    }

    /**
     * For a channel that commits nothing here: publishes the staged files the table names that were already there at
     * the previous sweep, so a writer that is only slow to publish is left alone once. Every stream's: those of the
     * stream the channel read before it was created again on another are published here too.
     */
    void sweep() {
        table.refresh();
        sweep(ShardWatermarks.stagedDeadLetterFiles(table));
    }

    private void sweep(Set<String> named) {
        Set<String> unsettled = new HashSet<>(named);
        unsettled.removeAll(settled);
        settled.retainAll(named);
        Set<String> stillThere = new HashSet<>();
        for (String staged : unsettled) {
            if (!seenAtLastSweep.contains(staged)) {
                if (table.io().newInputFile(staged).exists()) {
                    stillThere.add(staged);
                } else {
                    settled.add(staged);
                }
            } else {
                publishIfStaged(staged);
            }
        }
        seenAtLastSweep = stillThere;
    }

    private void publishIfStaged(String staged) {
        if (settled.contains(staged)) {
            return;
        }
        List<DlqBatch> batches = read(staged);
        if (batches != null) {
            LOG.infof("Publishing the dead letters another writer committed and did not publish (%s)", staged);
            dlq.store(batches);
            table.io().deleteFile(staged);
        }
        settled.add(staged);
    }

    /** The staged batches, or null when the file is gone: its publisher deletes it once they are stored. */
    private List<DlqBatch> read(String staged) {
        InputFile in = table.io().newInputFile(staged);
        try (InputStream stream = in.newStream()) {
            return JSON.readValue(stream, BATCHES);
        } catch (NotFoundException gone) {
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException("reading the staged dead letters " + staged + " failed", e);
        }
    }

    private void settle(String staged) {
        table.io().deleteFile(staged);
        settled.add(staged);
    }
}
