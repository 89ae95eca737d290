package io.streamtables.catalog;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The Iceberg catalog: every {@code delivery.catalog.<property>} is passed unchanged to
 * {@link CatalogUtil#buildIcebergCatalog}; what is not set defaults to a JDBC catalog on a local SQLite
 * file with a local warehouse folder.
 */
public class CatalogProducer {

    static final String PREFIX = "delivery.catalog.";

    @Produces
    @Singleton
    Catalog catalog() {
        Map<String, String> props = catalogProperties(ConfigProvider.getConfig());
        return CatalogUtil.buildIcebergCatalog("delivery", props, null);
    }

    static Map<String, String> catalogProperties(Config config) {
        Map<String, String> props = new TreeMap<>();
        for (String name : config.getPropertyNames()) {
            if (name.startsWith(PREFIX)) {
                config.getOptionalValue(name, String.class).ifPresent(v -> props.put(name.substring(PREFIX.length()), v));
            }
        }
        return withDefaults(props);
    }

    static Map<String, String> withDefaults(Map<String, String> props) {
        props.putIfAbsent(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_JDBC);
        if (CatalogUtil.ICEBERG_CATALOG_TYPE_JDBC.equals(props.get(CatalogUtil.ICEBERG_CATALOG_TYPE))) {
            props.putIfAbsent(CatalogProperties.URI, "jdbc:sqlite:data/catalog.db");
            props.putIfAbsent("jdbc.schema-version", "V1");
            if (props.get(CatalogProperties.URI).startsWith("jdbc:sqlite:")) {
                // SQLite takes one writer at a time
                props.putIfAbsent(CatalogProperties.CLIENT_POOL_SIZE, "1");
                createSqliteFolder(props.get(CatalogProperties.URI));
            }
        }
        String warehouse = props.computeIfAbsent(CatalogProperties.WAREHOUSE_LOCATION, k -> "data/warehouse");
        if (warehouse.startsWith("s3://") || warehouse.startsWith("s3a://")) {
            props.putIfAbsent(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.aws.s3.S3FileIO");
            props.putIfAbsent("http-client.type", "urlconnection");
        } else if (!warehouse.contains("://")) {
            props.put(CatalogProperties.WAREHOUSE_LOCATION, Path.of(warehouse.replaceFirst("^file:", ""))
                    .toAbsolutePath().normalize().toString());
            props.putIfAbsent(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
        }
        return props;
    }

    private static void createSqliteFolder(String uri) {
        Path parent = Path.of(uri.substring("jdbc:sqlite:".length())).toAbsolutePath().getParent();
        parent.toFile().mkdirs();
    }
}
