package io.streamtables.roles;

import java.util.Optional;

/** Channel roles for tests of other packages. */
public final class TestRoles {

    private TestRoles() {
    }

    /** Roles off: the service calls as itself, and never reaches STS. */
    public static ChannelRoles off() {
        return new ChannelRoles(false, Optional.empty(), "us-east-1", () -> {
            throw new AssertionError("no STS client with roles off");
        });
    }
}
