package io.streamtables.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * SPEC E1: every object the service writes to the table bucket — data files, manifests, manifest lists, table
 * metadata, staged dead letters — is written with SSE-KMS and the channel's key when the channel names one, and with
 * SSE-S3 otherwise; DLQ objects carry no SSE header by default, so the DLQ bucket's own default encryption applies
 * ({@code DeadLetterEncryptionTest} has the settings). The service's S3 requests go through
 * {@link RecordingS3Proxy}, which records what each one asked for.
 */
class EncryptionIT {

    static final String KEY = "arn:aws:kms:" + Peers.REGION + ":" + Peers.ACCOUNT
            + ":key/1234abcd-12ab-34cd-56ef-1234567890ab";

    @Test
    void everyObjectOfAKmsChannelCarriesItsKey() throws Exception {
        try (DeliveryFixture fixture = new DeliveryFixture("sse-kms", DeliveryFixture.CatalogKind.SQLITE, 1);
                RecordingS3Proxy proxy = new RecordingS3Proxy(Peers.S3)) {
            fixture.encryptWith(KEY);
            fixture.routeS3Through(proxy.endpoint());
            try (AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start()) {
                fixture.awaitActive(app);
                Events events = new Events(7, 1);
                fixture.produce(events.next(1_000, 25));
                fixture.awaitDelivered(120, app);
                fixture.produce(events.next(1_000, 25)); // a second commit: manifests of an existing table
                fixture.awaitDelivered(120, app);
                DeliveryFixture.Summary summary = fixture.verify();
                assertTrue(summary.deadLetters() > 0 && summary.commits() >= 2, summary.toString());
            }
            Map<String, List<RecordingS3Proxy.Request>> written = writes(proxy, fixture);
            System.out.printf("sse-kms: %s%n", counts(written));
            written.forEach((kind, requests) -> requests.forEach(r -> {
                boolean dlq = kind.equals("dlq");
                assertEquals(dlq ? null : "aws:kms", r.header("x-amz-server-side-encryption"), r.target());
                assertEquals(dlq ? null : KEY, r.header("x-amz-server-side-encryption-aws-kms-key-id"), r.target());
            }));
        }
    }

    /** The operator switch for stores that refuse SSE headers: none is sent, and the log says so. */
    @Test
    void theOperatorSwitchSendsNoSseHeaders() throws Exception {
        try (DeliveryFixture fixture = new DeliveryFixture("sse-off", DeliveryFixture.CatalogKind.SQLITE, 1);
                RecordingS3Proxy proxy = new RecordingS3Proxy(Peers.S3)) {
            fixture.encryptWith(KEY);
            fixture.routeS3Through(proxy.endpoint());
            fixture.appConfig.put("delivery.encryption.sse-headers", "false");
            try (AllInOneProcess app = new AllInOneProcess(fixture.workDir, fixture.appConfig).start()) {
                fixture.awaitActive(app);
                fixture.produce(new Events(8, 1).next(500, 25));
                fixture.awaitDelivered(120, app);
                fixture.verify();
                assertTrue(app.log().contains("delivery.encryption.sse-headers=false"), "no warning in the log");
            }
            Map<String, List<RecordingS3Proxy.Request>> written = writes(proxy, fixture);
            System.out.printf("sse-off: %s%n", counts(written));
            written.values().stream().flatMap(List::stream).forEach(r -> {
                assertEquals(null, r.header("x-amz-server-side-encryption"), r.target());
                assertEquals(null, r.header("x-amz-server-side-encryption-aws-kms-key-id"), r.target());
            });
        }
    }

    /** The objects the service created, by kind; fails when a kind is missing, so the check cannot pass empty. */
    static Map<String, List<RecordingS3Proxy.Request>> writes(RecordingS3Proxy proxy, DeliveryFixture fixture) {
        return writes(proxy, fixture, false);
    }

    /**
     * @param catalogWritesMetadata true for a REST catalog: its server writes the table metadata (with the
     *     encryption the server is configured for), the service the rest
     */
    static Map<String, List<RecordingS3Proxy.Request>> writes(RecordingS3Proxy proxy, DeliveryFixture fixture,
            boolean catalogWritesMetadata) {
        List<RecordingS3Proxy.Request> creates = proxy.requests().stream()
                .filter(RecordingS3Proxy.Request::createsObject).toList();
        Map<String, Predicate<RecordingS3Proxy.Request>> kinds = Map.of(
                "data", r -> r.bucket().equals(fixture.warehouseBucket) && r.key().endsWith(".parquet"),
                "manifest", r -> r.bucket().equals(fixture.warehouseBucket) && r.key().matches(".*/metadata/[^/]*-m\\d+\\.avro"),
                "manifest-list", r -> r.bucket().equals(fixture.warehouseBucket) && r.key().matches(".*/metadata/snap-.*\\.avro"),
                "metadata", r -> r.bucket().equals(fixture.warehouseBucket) && r.key().endsWith(".metadata.json"),
                "staged-dead-letters", r -> r.bucket().equals(fixture.warehouseBucket)
                        && r.key().matches(".*/metadata/dead-letters-[^/]*\\.json"),
                "dlq", r -> r.bucket().equals(fixture.dlqBucket));
        if (catalogWritesMetadata) {
            kinds = new java.util.HashMap<>(kinds);
            kinds.remove("metadata");
        }
        Map<String, List<RecordingS3Proxy.Request>> byKind = kinds.entrySet().stream().collect(Collectors.toMap(
                Map.Entry::getKey, e -> creates.stream().filter(e.getValue()).toList()));
        byKind.forEach((kind, list) -> assertTrue(!list.isEmpty(), "no " + kind + " object was written: " + creates));
        assertEquals(creates.size(), byKind.values().stream().mapToInt(List::size).sum(),
                "objects of no known kind: " + creates);
        return byKind;
    }

    static Map<String, Integer> counts(Map<String, List<RecordingS3Proxy.Request>> written) {
        return written.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().size(),
                (a, b) -> a, java.util.TreeMap::new));
    }
}
