package io.streamtables.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.util.Map;
import java.util.Optional;

/** The operator's settings shared by every stage (docs/OPERATING.md "Configuration"). */
@ConfigMapping(prefix = "delivery")
public interface DeliveryConfig {

    /** Region of the channel ARNs this service issues; streams, table buckets and registries must be in it. */
    @WithDefault("us-east-1")
    String region();

    /** Account id of the channel ARNs this service issues. */
    @WithDefault("000000000000")
    String accountId();

    /** The lowest {@code DataFreshnessInSeconds} a channel may ask for (the seed's minimum is 300). */
    @WithDefault("300")
    int minDataFreshnessSeconds();

    /** A JSON file with an array of CreateChannel inputs, loaded at start-up. */
    Optional<String> channelsFile();

    /** Local schema registry: {@code <dir>/<registry>/<schema>.json} serves the GSRSchemaARN of that name. */
    @WithDefault("schemas")
    String schemasDir();

    /**
     * Iceberg catalog properties, passed unchanged to {@code CatalogUtil.buildIcebergCatalog}
     * ({@code delivery.catalog.uri}, {@code delivery.catalog.warehouse}, {@code delivery.catalog.s3.endpoint}, ...).
     */
    Map<String, String> catalog();

    /**
     * A catalog per table bucket: {@code delivery.table-buckets.<bucket-name>.<property>}, passed to
     * {@code CatalogUtil.buildIcebergCatalog} as {@link #catalog()} is; {@code type=s3tables} stands for the S3 Tables
     * Iceberg REST endpoint of the bucket's Region (docs/OPERATING.md "Catalogs").
     */
    Map<String, Map<String, String>> tableBuckets();

    /**
     * The service's own database: channel state such as the activation time. SQLite ({@code data/delivery.db}) by
     * default, set with Quarkus's datasources in {@code META-INF/microprofile-config.properties}.
     */
    String databaseUrl();

    /** The service database's user, when not in the URL. */
    Optional<String> databaseUser();

    /** The service database's password: its own setting, so that it never rides in a URL that errors repeat. */
    Optional<String> databasePassword();
}
