package io.streamtables.api;

import io.streamtables.auth.SigV4Authenticator.Claim;
import io.streamtables.config.ApiLimits;
import java.util.HashMap;
import java.util.Map;

/**
 * The memory that request bodies hold from their arrival to their answer, shared so that no caller can take it all:
 * every body together at most {@link ApiLimits#bodyBudget}, those signed with one key at most
 * {@link ApiLimits#bodyBudgetPerKey} (keys of no principal share one holder), and those of callers other than the
 * stages' own principal leave {@link ApiLimits#bodyBudgetServiceReserve} free. Bytes are taken as they arrive, so a
 * request that declares a body and sends none holds nothing.
 */
final class BodyBudget {

    /** Why a share was refused: the limit, named by its setting. */
    enum Refusal {
        KEY("the bodies under way signed with this key hold its share (delivery.api.body-budget-per-key)"),
        ALL("the service is receiving as many request bodies as it holds at once (delivery.api.body-budget)");

        final String reason;

        Refusal(String reason) {
            this.reason = reason;
        }
    }

    private final long total;
    private final long perKey;
    private final long forOthers;
    private final Map<String, Long> byHolder = new HashMap<>();
    private long held;
    private long heldByOthers;

    BodyBudget(ApiLimits limits) {
        this(limits.bodyBudget().asLongValue(), limits.bodyBudgetPerKey().asLongValue(),
                limits.bodyBudgetServiceReserve().asLongValue());
    }

    BodyBudget(long total, long perKey, long serviceReserve) {
        if (perKey > total || serviceReserve >= total) {
            throw new IllegalArgumentException("delivery.api.body-budget-per-key (" + perKey + ") must be at most and "
                    + "delivery.api.body-budget-service-reserve (" + serviceReserve + ") below delivery.api.body-budget ("
                    + total + ")");
        }
        this.total = total;
        this.perKey = perKey;
        this.forOthers = total - serviceReserve;
    }

    /** Takes {@code bytes} more for a body of {@code claim}'s; null when taken, else why not. */
    synchronized Refusal take(Claim claim, long bytes) {
        long ofHolder = claim.holder() == null ? 0 : byHolder.getOrDefault(claim.holder(), 0L);
        if (claim.holder() != null && ofHolder + bytes > perKey) {
            return Refusal.KEY;
        }
        if (held + bytes > total || !claim.service() && heldByOthers + bytes > forOthers) {
            return Refusal.ALL;
        }
        held += bytes;
        if (!claim.service()) {
            heldByOthers += bytes;
        }
        if (claim.holder() != null) {
            byHolder.put(claim.holder(), ofHolder + bytes);
        }
        return null;
    }

    /** Gives back what a body of {@code claim}'s took, once it is answered or its connection gone. */
    synchronized void give(Claim claim, long bytes) {
        if (bytes == 0) {
            return;
        }
        held -= bytes;
        if (!claim.service()) {
            heldByOthers -= bytes;
        }
        if (claim.holder() != null) {
            byHolder.computeIfPresent(claim.holder(), (k, v) -> v - bytes == 0 ? null : v - bytes);
        }
    }

    synchronized long held() {
        return held;
    }
}
