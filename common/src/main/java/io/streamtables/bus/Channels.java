package io.streamtables.bus;

/** Names of the bus channels between the stages. */
public final class Channels {
    public static final String RECORDS = "records";
    public static final String ROWS = "rows";
    public static final String DLQ = "dlq";
    public static final String DLQ_ACKS = "dlq-acks";
    /** commit → ingest, over Kafka only: in memory the refusal travels back as the chunk's negative ack. */
    public static final String REWINDS = "rewinds";

    private Channels() {
    }
}
