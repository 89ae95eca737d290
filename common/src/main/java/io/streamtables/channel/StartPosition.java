package io.streamtables.channel;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;

/**
 * Where a new channel starts reading its stream (SPEC S2): at its activation (the default, as the seed does), at the
 * oldest record the stream holds ({@code TRIM_HORIZON}), or at a timestamp: a backfill, exactly once as everywhere.
 * Chosen by the channel's tag {@value #TAG}. A shard the channel has delivered from resumes after its watermark.
 *
 * @param at the timestamp of {@link Kind#AT_TIMESTAMP}, else null
 */
public record StartPosition(Kind kind, Instant at) {

    public enum Kind { ACTIVATION, TRIM_HORIZON, AT_TIMESTAMP }

    public static final String TAG = "delivery:start-position";
    static final StartPosition ACTIVATION = new StartPosition(Kind.ACTIVATION, null);

    /**
     * The position a channel's tags choose.
     *
     * @throws IllegalArgumentException naming the tag and the values it takes
     */
    public static StartPosition of(Map<String, String> tags) {
        String value = tags == null ? null : tags.get(TAG);
        if (value == null || value.equals(Kind.ACTIVATION.name())) {
            return ACTIVATION;
        }
        if (value.equals(Kind.TRIM_HORIZON.name())) {
            return new StartPosition(Kind.TRIM_HORIZON, null);
        }
        try {
            return new StartPosition(Kind.AT_TIMESTAMP, Instant.parse(value));
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("Tags: '" + TAG + "' must be ACTIVATION (the default), TRIM_HORIZON or "
                    + "an ISO-8601 instant such as 2026-12-01T00:00:00Z, not '"
                    + value.substring(0, Math.min(value.length(), 64)) + "'");
        }
    }

    /** The timestamp a shard never read before starts at, or null for the oldest record it holds. */
    public Instant from(Instant activatedAt) {
        return switch (kind) {
            case ACTIVATION -> activatedAt;
            case TRIM_HORIZON -> null;
            case AT_TIMESTAMP -> at;
        };
    }

    /**
     * Whether a record that arrived at {@code arrivalMillis} is the channel's to deliver: it arrived at or after where
     * the channel started. A shard resumed after a watermark of the channel's table may hold records of before: put
     * while an earlier channel of the name was gone, or before it was deleted and not delivered; those are not this
     * channel's (SPEC S2: only records after it is ACTIVE).
     */
    public boolean delivers(Instant activatedAt, long arrivalMillis) {
        Instant from = from(activatedAt);
        return from == null || arrivalMillis >= from.toEpochMilli();
    }

    @Override
    public String toString() {
        return kind == Kind.AT_TIMESTAMP ? at.toString() : kind.name();
    }
}
