package io.streamtables.roles;

import java.net.URI;
import java.util.Optional;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sts.StsClient;

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

    /** Roles on: each channel signs as a session of its role, granted by {@code sts} to the service's key. */
    public static ChannelRoles through(StsStub sts) {
        return new ChannelRoles(true, Optional.empty(), "us-east-1", () -> StsClient.builder()
                .endpointOverride(URI.create(sts.endpoint())).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("SERVICEKEY", "s")))
                .build());
    }

    public static void close(ChannelRoles roles) {
        roles.close();
    }
}
