package io.streamtables.config;

import java.util.Map;
import java.util.Optional;

/** The service settings tests build channels with: us-east-1, no files, no catalogs, an in-memory database. */
public final class TestDeliveryConfig {

    private TestDeliveryConfig() {
    }

    /** @param account the operator's account ({@code delivery.account-id}) */
    public static DeliveryConfig forAccount(String account) {
        return withTableBuckets(account, Map.of());
    }

    /** @param tableBuckets {@code delivery.table-buckets.*}: each bucket's catalog entry */
    public static DeliveryConfig withTableBuckets(String account, Map<String, Map<String, String>> tableBuckets) {
        return new DeliveryConfig() {
            public String region() { return "us-east-1"; }
            public String accountId() { return account; }
            public int minDataFreshnessSeconds() { return 1; }
            public Optional<String> channelsFile() { return Optional.empty(); }
            public String schemasDir() { return "schemas"; }
            public Map<String, String> catalog() { return Map.of(); }
            public Map<String, Map<String, String>> tableBuckets() { return tableBuckets; }
            public String databaseUrl() { return "jdbc:sqlite::memory:"; }
            public Optional<String> databaseUser() { return Optional.empty(); }
            public Optional<String> databasePassword() { return Optional.empty(); }
        };
    }
}
