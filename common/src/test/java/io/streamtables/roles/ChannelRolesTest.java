package io.streamtables.roles;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelDefinition;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sts.StsClient;
import software.amazon.awssdk.services.sts.model.StsException;

/** The official StsClient against {@link StsStub}, which speaks STS's Query protocol. */
class ChannelRolesTest {

    static final String ROLE = "arn:aws:iam::123456789012:role/delivery";

    StsStub sts;
    ChannelRoles roles;

    @BeforeEach
    void start() throws Exception {
        sts = new StsStub("ASIASESSION", "session-secret");
        roles = new ChannelRoles(true, Optional.of("ext-42"), "us-east-1", () -> StsClient.builder()
                .endpointOverride(URI.create(sts.endpoint()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("SERVICEKEY", "s")))
                .build());
    }

    @AfterEach
    void stop() {
        roles.close();
        sts.close();
    }

    @Test
    void aChannelSignsAsASessionOfItsRole() {
        AwsSessionCredentials session = (AwsSessionCredentials) roles.credentials(channel("orders", ROLE))
                .resolveCredentials();
        assertEquals("ASIASESSION", session.accessKeyId());
        StsStub.Call call = sts.calls().get(0);
        assertEquals(call.sessionToken(), session.sessionToken());
        assertEquals("SERVICEKEY", call.signedBy(), "AssumeRole is signed by the service's own identity");
        assertEquals(Map.of("Action", "AssumeRole", "Version", "2011-06-15", "RoleArn", ROLE,
                "RoleSessionName", "delivery-orders", "DurationSeconds", "3600", "ExternalId", "ext-42-123456789012"),
                call.parameters());
        assertEquals(session.sessionToken(), ((AwsSessionCredentials) roles.override(channel("orders", ROLE))
                .credentialsProvider().orElseThrow().resolveCredentials()).sessionToken(), "one session per channel");
        assertEquals(1, sts.calls().size());
        assertNull(roles.problem(channel("orders", ROLE)));
        assertEquals("its ServiceExecutionRoleARN " + ROLE, roles.identity(channel("orders", ROLE)));
    }

    @Test
    void aSessionIsRenewedBeforeItExpires() {
        sts.lifetime(Duration.ofSeconds(30)); // inside the SDK's one-minute stale window: renewed on next use
        var credentials = roles.credentials(channel("renewed", ROLE));
        String first = ((AwsSessionCredentials) credentials.resolveCredentials()).sessionToken();
        String second = ((AwsSessionCredentials) credentials.resolveCredentials()).sessionToken();
        assertNotEquals(first, second);
        assertEquals(2, sts.tokens("delivery-renewed").size());
    }

    @Test
    void aRoleThatCannotBeAssumedIsAProblemNamingIt() {
        sts.refuse(ROLE);
        String problem = roles.problem(channel("refused", ROLE));
        assertTrue(problem.startsWith("ServiceExecutionRoleARN " + ROLE + " cannot be assumed (AccessDenied: User: "
                + "SERVICEKEY is not authorized"), problem);
        assertTrue(problem.contains("external id"), problem);
    }

    @Test
    void anUnreachableStsIsNotAProblemButAnError() {
        sts.close();
        assertThrows(SdkException.class, () -> roles.problem(channel("unreachable", ROLE)));
    }

    /** The service's own key refused is the operator's to fix, not the channel's: checked again, never FAILED. */
    @Test
    void aRefusedServiceKeyIsNotTheChannelsProblem() {
        sts.refuseCallerKey();
        assertThrows(StsException.class, () -> roles.problem(channel("key", ROLE)));
    }

    @Test
    void aChannelWithoutARoleCannotBeDeliveredAsOne() {
        Channel roleless = channel("roleless", null);
        assertEquals(ChannelRoles.NO_ROLE, roles.problem(roleless));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> roles.override(roleless));
        assertTrue(e.getMessage().contains("ServiceExecutionRoleARN is required"), e.getMessage());
        assertEquals(List.of(), sts.calls());
    }

    @Test
    void theTableFileIoAssumesTheSameRole() {
        assertEquals(Map.of("client.factory", "org.apache.iceberg.aws.AssumeRoleAwsClientFactory",
                "client.assume-role.arn", ROLE, "client.assume-role.region", "us-east-1",
                "client.assume-role.session-name", "delivery-tables", "client.assume-role.timeout-sec", "3600",
                "client.assume-role.external-id", "ext-42-123456789012"), roles.catalogProperties(channel("orders", ROLE)));
    }

    /**
     * Each account's channels pass an external id of their own, so a role whose trust policy asks for its account's
     * admits no other tenant's channel (before, every channel passed the one configured value).
     */
    @Test
    void eachAccountPassesAnExternalIdOfItsOwn() {
        String otherRole = "arn:aws:iam::210987654321:role/delivery";
        roles.credentials(channel("orders", ROLE)).resolveCredentials();
        roles.credentials(new Channel("arn:aws:kinesis:us-east-1:210987654321:channel/orders",
                new ChannelDefinition("orders", otherRole, null, null, null, null, null), null,
                Channel.RecordFormat.JSON, null, 1, "NONE", TableIdentifier.of("ns", "orders"), null, null, null, null,
                null)).resolveCredentials();
        assertEquals(List.of("ext-42-123456789012", "ext-42-210987654321"),
                sts.calls().stream().map(c -> c.parameters().get("ExternalId")).toList());
        ChannelRoles unprefixed = new ChannelRoles(true, Optional.empty(), "us-east-1", () -> {
            throw new AssertionError("not called");
        });
        assertEquals("123456789012", unprefixed.externalId("123456789012"));
    }

    /** A deleted channel's session is closed and dropped: before, every channel ever seen kept one. */
    @Test
    void aDeletedChannelsSessionGoes() {
        roles.credentials(channel("orders", ROLE)).resolveCredentials();
        roles.credentials(channel("kept", ROLE)).resolveCredentials();
        assertEquals(2, roles.sessionCount());
        roles.forget(new io.streamtables.channel.ChannelGone(channel("orders", ROLE).arn()));
        assertEquals(1, roles.sessionCount());
        roles.credentials(channel("orders", ROLE)).resolveCredentials();
        assertEquals(3, sts.calls().size(), "a channel created again gets a session of its own");
    }

    @Test
    void sessionNamesKeepToStsLimit() {
        String name = "c".repeat(128);
        assertEquals(("delivery-" + name).substring(0, 64), ChannelRoles.sessionName(channel(name, ROLE)));
    }

    @Test
    void withRolesOffTheServiceCallsAsItself() {
        ChannelRoles off = new ChannelRoles(false, Optional.empty(), "us-east-1", () -> {
            throw new AssertionError("no STS client with roles off");
        });
        Channel channel = channel("off", ROLE);
        assertNull(off.credentials(channel));
        assertNull(off.override(channel));
        assertNull(off.problem(channel));
        assertEquals(Map.of(), off.catalogProperties(channel));
        assertEquals("the service", off.identity(channel));
        assertNull(off.override(channel("roleless", null)), "no role needed");
        assertEquals(List.of(), sts.calls());
    }

    static Channel channel(String name, String role) {
        return new Channel("arn:aws:kinesis:us-east-1:123456789012:channel/" + name,
                new ChannelDefinition(name, role, null, null, null, null, null), null, Channel.RecordFormat.JSON,
                null, 1, "NONE", TableIdentifier.of("ns", name), null, null, null, null, null);
    }
}
