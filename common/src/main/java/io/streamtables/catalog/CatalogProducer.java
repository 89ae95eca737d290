package io.streamtables.catalog;

import io.streamtables.config.DeliveryConfig;
import io.streamtables.config.EncryptionConfig;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import io.streamtables.state.Sqlite;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.jboss.logging.Logger;

/**
 * The Iceberg catalog: every {@code delivery.catalog.<property>} is passed unchanged to
 * {@link CatalogUtil#buildIcebergCatalog}; what is not set defaults to a JDBC catalog on a local SQLite
 * file with a local warehouse folder.
 */
public class CatalogProducer {

    private static final Logger LOG = Logger.getLogger(CatalogProducer.class);

    @Produces
    @Singleton
    Catalog catalog(DeliveryConfig config, EncryptionConfig encryption) {
        if (!encryption.sseHeaders()) {
            LOG.warn("delivery.encryption.sse-headers=false: data, metadata and DLQ objects are written without "
                    + "server-side encryption headers; the store's own defaults decide whether they are encrypted");
        }
        return CatalogUtil.buildIcebergCatalog("delivery",
                withDefaults(new TreeMap<>(config.catalog()), encryption.sseHeaders()), null);
    }

    static Map<String, String> withDefaults(Map<String, String> props, boolean sseHeaders) {
        props.putIfAbsent(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_JDBC);
        if (CatalogUtil.ICEBERG_CATALOG_TYPE_JDBC.equals(props.get(CatalogUtil.ICEBERG_CATALOG_TYPE))) {
            props.putIfAbsent(CatalogProperties.URI, "jdbc:sqlite:data/catalog.db");
            props.putIfAbsent("jdbc.schema-version", "V1");
            if (props.get(CatalogProperties.URI).startsWith("jdbc:sqlite:")) {
                // SQLite takes one writer at a time
                props.putIfAbsent(CatalogProperties.CLIENT_POOL_SIZE, "1");
                Sqlite.createFolder(props.get(CatalogProperties.URI));
            }
        }
        String warehouse = props.computeIfAbsent(CatalogProperties.WAREHOUSE_LOCATION, k -> "data/warehouse");
        if (warehouse.startsWith("s3://") || warehouse.startsWith("s3a://")) {
            props.putIfAbsent(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.aws.s3.S3FileIO");
            props.putIfAbsent("http-client.type", "urlconnection");
            // SPEC E1: data and metadata files are encrypted at rest with SSE-S3 unless configured otherwise
            props.putIfAbsent("s3.sse.type", sseHeaders ? "s3" : "none");
        } else if (!warehouse.contains("://")) {
            props.put(CatalogProperties.WAREHOUSE_LOCATION, Path.of(warehouse.replaceFirst("^file:", ""))
                    .toAbsolutePath().normalize().toString());
            props.putIfAbsent(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
        }
        return props;
    }

}
