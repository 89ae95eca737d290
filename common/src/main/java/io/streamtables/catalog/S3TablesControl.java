package io.streamtables.catalog;

import java.net.URI;

/**
 * An S3 Tables bucket's control API: its endpoint and Region, and the keys its entry gives Iceberg's REST client
 * ({@code rest.access-key-id}, ...), which sign these calls too; null keys: the service's default credentials.
 */
public record S3TablesControl(URI endpoint, String region, Keys keys) {

    public record Keys(String accessKeyId, String secretAccessKey, String sessionToken) {

        @Override
        public String toString() {
            return "Keys[" + accessKeyId + ", secret redacted]";
        }
    }
}
