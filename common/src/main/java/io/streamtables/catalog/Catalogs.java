package io.streamtables.catalog;

import io.streamtables.channel.Channel;
import io.streamtables.config.DeliveryConfig;
import io.streamtables.config.EncryptionConfig;
import io.streamtables.roles.ChannelRoles;
import io.streamtables.state.ConcurrentDdl;
import io.streamtables.state.Sqlite;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.jboss.logging.Logger;

/**
 * The Iceberg catalog: every {@code delivery.catalog.<property>} is passed unchanged to
 * {@link CatalogUtil#buildIcebergCatalog}; what is not set defaults to a JDBC catalog on a local SQLite
 * file with a local warehouse folder. Iceberg's S3FileIO takes one SSE setting and one identity per instance, so a
 * channel with its own KMS key (SPEC E1) or role writes through a catalog of its own on the same store.
 */
@Singleton
public class Catalogs {

    private static final Logger LOG = Logger.getLogger(Catalogs.class);
    static final String SSE_TYPE = "s3.sse.type";
    static final String SSE_KEY = "s3.sse.key";

    private final Map<String, String> properties;
    private final boolean sseHeaders;
    private final Catalog shared;
    private final ChannelRoles roles;
    private final Map<Map<String, String>, Catalog> byProperties = new ConcurrentHashMap<>();

    public Catalogs(DeliveryConfig config, EncryptionConfig encryption, ChannelRoles roles) {
        this.sseHeaders = encryption.sseHeaders();
        this.roles = roles;
        if (!sseHeaders) {
            LOG.warn("delivery.encryption.sse-headers=false: data, metadata and DLQ objects are written without "
                    + "server-side encryption headers; the store's own defaults decide whether they are encrypted");
        }
        this.properties = withDefaults(new TreeMap<>(config.catalog()), sseHeaders);
        this.shared = build(properties);
    }

    /** The catalog of the service's own reads (readiness), and of the channels that need no catalog of their own. */
    @Produces
    @Singleton
    public Catalog catalog() {
        return shared;
    }

    /**
     * The catalog that writes a channel's table: with its encryption (SPEC E1) and, when channels assume their roles,
     * a FileIO signing as the channel's role. One instance per role and key.
     */
    public Catalog forChannel(Channel channel) {
        Map<String, String> own = channelProperties(properties, sseHeaders, channel.kmsKeyArn(),
                roles.catalogProperties(channel));
        return own.equals(properties) ? shared : byProperties.computeIfAbsent(own, Catalogs::build);
    }

    /** The catalog that reads a channel's table: the shared one, unless reads too must be the channel's role's. */
    public Catalog forReading(Channel channel) {
        return roles.catalogProperties(channel).isEmpty() ? shared : forChannel(channel);
    }

    /** The shared catalog's properties with a channel's key and role; the same map when it needs neither. */
    static Map<String, String> channelProperties(Map<String, String> properties, boolean sseHeaders, String kmsKeyArn,
            Map<String, String> roleProperties) {
        if (LocalFileIO.class.getName().equals(properties.get(CatalogProperties.FILE_IO_IMPL))) {
            return properties; // a local warehouse: no S3, no encryption headers, no role
        }
        Map<String, String> own = kmsKeyArn != null && sseHeaders ? withKey(properties, kmsKeyArn)
                : new TreeMap<>(properties);
        own.putAll(roleProperties);
        return Map.copyOf(own);
    }

    /** Instances that start at once on a new catalog database race to create its tables (see ConcurrentDdl). */
    static Catalog build(Map<String, String> props) {
        return ConcurrentDdl.run(() -> buildOnce(props));
    }

    /**
     * Iceberg loads a FileIO by class name from its own class loader, which in Quarkus dev and test modes is not
     * the one of this module's classes: the local FileIO is handed over as an object instead.
     */
    private static Catalog buildOnce(Map<String, String> props) {
        if (LocalFileIO.class.getName().equals(props.get(CatalogProperties.FILE_IO_IMPL))
                && CatalogUtil.ICEBERG_CATALOG_TYPE_JDBC.equals(props.get(CatalogUtil.ICEBERG_CATALOG_TYPE))) {
            JdbcCatalog catalog = new JdbcCatalog(p -> new LocalFileIO(), null, true);
            try {
                catalog.initialize("delivery", props);
            } catch (RuntimeException e) {
                close(catalog);
                throw e;
            }
            return catalog;
        }
        return CatalogUtil.buildIcebergCatalog("delivery", props, null);
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
            props.putIfAbsent(SSE_TYPE, sseHeaders ? "s3" : "none");
        } else if (!warehouse.contains("://")) {
            props.put(CatalogProperties.WAREHOUSE_LOCATION, Path.of(warehouse.replaceFirst("^file:", ""))
                    .toAbsolutePath().normalize().toString());
            props.putIfAbsent(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
        }
        return Map.copyOf(props);
    }

    /** SSE-KMS with the channel's key on every object S3FileIO writes (data files, manifests, metadata). */
    static Map<String, String> withKey(Map<String, String> props, String kmsKeyArn) {
        Map<String, String> keyed = new TreeMap<>(props);
        keyed.put(SSE_TYPE, "kms");
        keyed.put(SSE_KEY, kmsKeyArn);
        return keyed;
    }

    @PreDestroy
    void close() {
        byProperties.values().forEach(Catalogs::close);
        close(shared);
    }

    private static void close(Catalog catalog) {
        if (catalog instanceof Closeable closeable) {
            try {
                closeable.close();
            } catch (IOException | RuntimeException e) {
                LOG.debugf("Closing catalog: %s", e.getMessage());
            }
        }
    }
}
