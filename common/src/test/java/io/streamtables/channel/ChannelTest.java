package io.streamtables.channel;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ChannelTest {

    @Test
    void aRoleIsAnIamRoleArnAndRequiredOnlyWhenRolesAreAssumed() {
        Channel.checkRole(null, false);
        Channel.checkRole("arn:aws:iam::123456789012:role/delivery", true);
        Channel.checkRole("arn:aws:iam::123456789012:role/path/delivery", false);
        assertRefused("ServiceExecutionRoleARN is required while the service assumes channels' roles", null, true);
        assertRefused("ServiceExecutionRoleARN 'delivery' is not a well-formed iam ARN", "delivery", false);
        assertRefused("is not a well-formed iam ARN", "arn:aws:iam::123456789012:user/alice", false);
        assertRefused("is not a well-formed iam ARN", "arn:aws:s3:::role/delivery", false);
        assertRefused("names no account", "arn:aws:iam:::role/delivery", false);
        assertRefused("must be at most 2048", "arn:aws:iam::123456789012:role/" + "r".repeat(2048), false);
    }

    private static void assertRefused(String message, String role, boolean required) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Channel.checkRole(role, required));
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }
}
