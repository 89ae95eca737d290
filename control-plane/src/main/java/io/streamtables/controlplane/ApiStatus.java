package io.streamtables.controlplane;

import io.streamtables.channel.ChannelRegistry;

/**
 * A channel's state as the API answers it: always one of the SDKs' {@code ChannelStatus} values (CREATING, ACTIVE,
 * UPDATING, DELETING, FAILED), so that a script testing {@code == FAILED} sees every final state. A suspended channel
 * (SPEC C4) is FAILED with a reason that says so; the delivery log and metrics keep the finer word. An ACTIVE channel
 * is UPDATING after an UpdateChannel until every process of every stage has read the update.
 */
record ApiStatus(String status, String reason) {

    static final String SUSPENDED = "Suspended: ";
    static final String CANNOT_RESUME = " A suspended channel cannot be resumed: create a new channel.";

    /** @param readEverywhere the revision every stage runs with ({@link ChannelRegistry#readEverywhere}) */
    static ApiStatus of(ChannelRegistry.Entry e, long readEverywhere) {
        if (e.status() == ChannelRegistry.Status.SUSPENDED) {
            String why = String.valueOf(e.statusReason()).replaceFirst("\\.$", "");
            return new ApiStatus(ChannelRegistry.Status.FAILED.name(), SUSPENDED + why + "." + CANNOT_RESUME);
        }
        if (e.status() == ChannelRegistry.Status.ACTIVE && e.revision() > readEverywhere) {
            return new ApiStatus("UPDATING", null);
        }
        return new ApiStatus(e.status().name(), e.statusReason());
    }
}
