package io.streamtables.controlplane;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.streamtables.stubs.AwsStub;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Set;

/**
 * KMS for the control plane's tests (its DescribeKey on AWS JSON 1.1), injected into a test's {@link AwsStub} field:
 * {@link #describing} answers the keys of a set as AWS managed, the others as customer managed.
 */
public class KmsStubResource implements QuarkusTestResourceLifecycleManager {

    private AwsStub kms;

    /** DescribeKey answers the keys of {@code awsManaged} as AWS managed, every other key as customer managed. */
    public static AwsStub describing(AwsStub kms, Set<String> awsManaged) {
        return kms.on("TrentService.DescribeKey", request -> {
            String key = request.path("KeyId").asText();
            return AwsStub.object().set("KeyMetadata", AwsStub.object().put("KeyId", key).put("Arn", key)
                    .put("KeyState", "Enabled").put("KeyManager", awsManaged.contains(key) ? "AWS" : "CUSTOMER"));
        });
    }

    @Override
    public Map<String, String> start() {
        try {
            kms = new AwsStub();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        describing(kms, Set.of());
        return Map.of("delivery.kms.endpoint-override", kms.endpoint(),
                "delivery.kms.aws.credentials.type", "static",
                "delivery.kms.aws.credentials.static-provider.access-key-id", "test",
                "delivery.kms.aws.credentials.static-provider.secret-access-key", "test");
    }

    @Override
    public void inject(TestInjector injector) {
        injector.injectIntoFields(kms, new TestInjector.MatchesType(AwsStub.class));
    }

    @Override
    public void stop() {
        kms.close();
    }
}
