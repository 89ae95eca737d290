package io.streamtables.channel;

/** A CDI event: the channel is no longer in the service database (deleted), so what is kept for it can go. */
public record ChannelGone(String arn) {
}
