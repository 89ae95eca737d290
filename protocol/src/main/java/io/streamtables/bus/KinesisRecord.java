package io.streamtables.bus;

/** One record as read from a shard; {@code data} is the payload and never leaves the delivery path. */
public record KinesisRecord(String sequenceNumber, long arrivalMillis, byte[] data) {
}
