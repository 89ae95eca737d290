package io.streamtables.ingest;

import io.streamtables.channel.Channel;
import io.streamtables.watermarks.ShardWatermarks;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.exceptions.NoSuchTableException;

/** The table is the checkpoint store: what is committed there is where reading resumes. */
@ApplicationScoped
public class CommittedWatermarks {

    private final Catalog catalog;

    public CommittedWatermarks(Catalog catalog) {
        this.catalog = catalog;
    }

    /** Shard id → last delivered sequence number; empty before the first commit. */
    public Map<String, String> of(Channel channel) {
        try {
            return ShardWatermarks.committed(catalog.loadTable(channel.table()));
        } catch (NoSuchTableException e) {
            return Map.of();
        }
    }
}
