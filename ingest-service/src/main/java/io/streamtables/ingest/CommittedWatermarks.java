package io.streamtables.ingest;

import io.streamtables.catalog.Catalogs;
import io.streamtables.channel.Channel;
import io.streamtables.watermarks.ShardWatermarks;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import org.apache.iceberg.exceptions.NoSuchTableException;

/** The table is the checkpoint store: what is committed there is where reading resumes. */
@ApplicationScoped
public class CommittedWatermarks {

    private final Catalogs catalogs;

    public CommittedWatermarks(Catalogs catalogs) {
        this.catalogs = catalogs;
    }

    /** Shard id of the channel's stream → last delivered sequence number; empty before the first commit. */
    public Map<String, String> of(Channel channel) {
        try {
            return ShardWatermarks.committed(catalogs.forReading(channel).loadTable(channel.table()),
                    channel.streamArn().toString());
        } catch (NoSuchTableException e) {
            return Map.of();
        }
    }
}
