package io.streamtables.bus;

/**
 * Names of the bus's topics between the stages: Kafka topics when distributed, SmallRye's in-memory channels in one
 * JVM. ("Channel" names a delivery channel everywhere else.)
 */
public final class Topics {
    public static final String RECORDS = "records";
    public static final String ROWS = "rows";
    public static final String DLQ = "dlq";
    public static final String DLQ_ACKS = "dlq-acks";
    /** commit → ingest: read this shard again from here (docs/DESIGN.md "Rewinds"). */
    public static final String REWINDS = "rewinds";

    private Topics() {
    }
}
