package io.streamtables.catalog;

import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelGone;
import io.streamtables.config.AwsClients;
import io.streamtables.config.DeliveryConfig;
import io.streamtables.config.EncryptionConfig;
import io.streamtables.roles.ChannelRoles;
import io.streamtables.state.ConcurrentDdl;
import io.streamtables.state.Sqlite;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.jdbc.JdbcClientPool;
import org.jboss.logging.Logger;

/**
 * The Iceberg catalogs, one per table bucket: a bucket's {@code delivery.table-buckets.<name>.<property>}
 * entry, else the operator-wide {@code delivery.catalog.<property>}; type {@code s3tables} (the default when nothing
 * is set) is the S3 Tables Iceberg REST endpoint of the bucket's Region with the bucket as warehouse, signed with
 * SigV4. Properties are passed unchanged
 * to {@link CatalogUtil#buildIcebergCatalog}; a JDBC catalog defaults to a local SQLite file with a local warehouse
 * folder. Iceberg's S3FileIO takes one SSE setting and one identity per instance, so a channel with its own KMS key
 * (SPEC E1) or role writes through a catalog instance of its own; channels alike share one.
 */
@Singleton
public class Catalogs {

    private static final Logger LOG = Logger.getLogger(Catalogs.class);
    static final String SSE_TYPE = "s3.sse.type";
    static final String SSE_KEY = "s3.sse.key";
    /** The catalog type that stands for a bucket's S3 Tables Iceberg REST endpoint. */
    static final String S3_TABLES = "s3tables";
    static final String S3_FILE_IO = "org.apache.iceberg.aws.s3.S3FileIO";
    private static final Pattern AWS_S3_TABLES = Pattern.compile("https://s3tables\\.[a-z0-9-]+\\.amazonaws\\.com(\\.cn)?(/.*)?");
    /** Iceberg's REST client properties (iceberg-aws' RESTSigV4AuthManager), by name: not every stage has it. */
    static final String AUTH_TYPE = "rest.auth.type";
    static final String SIGNING_NAME = "rest.signing-name";
    static final String SIGNING_REGION = "rest.signing-region";
    /** The keys Iceberg's REST client signs with, when a bucket's entry gives them (else the default chain's). */
    static final String ACCESS_KEY_ID = "rest.access-key-id";
    static final String SECRET_ACCESS_KEY = "rest.secret-access-key";
    static final String SESSION_TOKEN = "rest.session-token";
    /** An S3 Tables bucket's control API (CreateTable), beside its Iceberg REST endpoint. */
    static final String S3_TABLES_ENDPOINT = "s3tables.endpoint";
    static final String REST_CONNECTION_TIMEOUT = "rest.client.connection-timeout-ms";
    static final String REST_SOCKET_TIMEOUT = "rest.client.socket-timeout-ms";

    private final boolean sseHeaders;
    private final ChannelRoles roles;
    /** {@code delivery.catalog.*}: the catalog of buckets without an entry, theirs on S3 Tables when nothing is set. */
    private final Map<String, String> unlisted;
    private final Map<String, Map<String, String>> entries;
    private final Map<String, Map<String, String>> byBucket = new ConcurrentHashMap<>();
    private final Map<Map<String, String>, Catalog> byProperties = new ConcurrentHashMap<>();
    /**
     * JDBC catalogs' connections, by what the connection needs: one pool for every catalog of a database, however
     * many keys and roles give it a catalog of its own (a pool each let ~50 keys exhaust PostgreSQL's connections).
     */
    private final Map<Map<String, String>, SharedJdbcPool> pools = new ConcurrentHashMap<>();
    /** What each channel's catalogs were built from: a deleted channel's go when no other channel uses them. */
    private final Map<String, Used> used = new HashMap<>();

    private record Used(String bucketArn, Set<Map<String, String>> properties) {
    }

    @Inject
    public Catalogs(DeliveryConfig config, EncryptionConfig encryption, ChannelRoles roles) {
        this(config.catalog(), config.tableBuckets(), encryption.sseHeaders(), roles);
    }

    Catalogs(Map<String, String> catalog, Map<String, Map<String, String>> tableBuckets, boolean sseHeaders,
            ChannelRoles roles) {
        this.sseHeaders = sseHeaders;
        this.roles = roles;
        if (!sseHeaders) {
            LOG.warn("delivery.encryption.sse-headers=false: data, metadata and DLQ objects are written without "
                    + "server-side encryption headers; the store's own defaults decide whether they are encrypted");
        }
        this.unlisted = catalog.isEmpty() ? Map.of(CatalogUtil.ICEBERG_CATALOG_TYPE, S3_TABLES) : Map.copyOf(catalog);
        this.entries = Map.copyOf(tableBuckets);
        if (!s3Tables(unlisted)) {
            catalog(properties(unlisted, null, sseHeaders)); // a wrong setting fails the start, as it always did
        }
    }

    /**
     * The catalogs the operator configured, by the setting that names them, built on first use: what readiness
     * checks. S3 Tables buckets are not among them (their warehouse is a bucket's ARN): a channel checks its own.
     */
    public Map<String, Supplier<Catalog>> configured() {
        Map<String, Supplier<Catalog>> configured = new TreeMap<>();
        if (!s3Tables(unlisted)) {
            configured.put("delivery.catalog", () -> catalog(properties(unlisted, null, sseHeaders)));
        }
        entries.forEach((bucket, entry) -> {
            if (!s3Tables(entry)) {
                configured.put("delivery.table-buckets." + bucket, () -> catalog(properties(entry, null, sseHeaders)));
            }
        });
        return configured;
    }

    /**
     * The catalog that writes a channel's table: its bucket's, with the channel's encryption (SPEC E1) and, when
     * channels assume their roles, a FileIO signing as the channel's role.
     */
    public Catalog forChannel(Channel channel) {
        return catalog(channel, channelProperties(bucketProperties(channel), sseHeaders, channel.kmsKeyArn(),
                roles.catalogProperties(channel)));
    }

    /** The catalog that reads a channel's table: its bucket's, as the channel's role when reads must be too. */
    public Catalog forReading(Channel channel) {
        return roles.catalogProperties(channel).isEmpty() ? catalog(channel, bucketProperties(channel))
                : forChannel(channel);
    }

    /**
     * A deleted channel's catalogs are closed, and its bucket's properties dropped, unless another channel uses them
     * or the operator configured them: what is kept per key, role and bucket does not outlive the channels.
     */
    void forget(@Observes ChannelGone gone) {
        List<Catalog> closing = new ArrayList<>();
        synchronized (used) {
            Used left = used.remove(gone.arn());
            if (left == null) {
                return;
            }
            Set<Map<String, String>> kept = new HashSet<>();
            Set<String> buckets = new HashSet<>();
            used.values().forEach(u -> {
                kept.addAll(u.properties());
                buckets.add(u.bucketArn());
            });
            for (Map<String, String> properties : left.properties()) {
                if (!kept.contains(properties) && !operators(properties)) {
                    Catalog catalog = byProperties.remove(properties);
                    if (catalog != null) {
                        closing.add(catalog);
                    }
                }
            }
            if (!buckets.contains(left.bucketArn())) {
                byBucket.remove(left.bucketArn());
            }
        }
        closing.forEach(Catalogs::close);
    }

    /** Whether these are the properties of a catalog the operator configured (readiness checks it). */
    private boolean operators(Map<String, String> properties) {
        if (properties.equals(properties(unlisted, null, sseHeaders))) {
            return true;
        }
        return entries.values().stream().anyMatch(entry -> properties.equals(properties(entry, null, sseHeaders)));
    }

    /** Where a channel's table bucket's catalog comes from, for the reasons that name it. */
    public String describe(Channel channel) {
        if (entries.containsKey(channel.tableBucketName())) {
            return "delivery.table-buckets." + channel.tableBucketName() + ".*";
        }
        return s3Tables(unlisted) ? "the S3 Tables endpoint " + bucketProperties(channel).get(CatalogProperties.URI)
                : "delivery.catalog.*";
    }

    /**
     * Whether other table buckets (of any account) share the channel's bucket's catalog: the operator-wide
     * {@code delivery.catalog.*} of buckets without an entry, unless it stands for each bucket's own S3 Tables catalog.
     * A table there is not the bucket's owner's by where it is ({@link DeliveryTables#deliveryProblem}).
     */
    public boolean shared(Channel channel) {
        return !entries.containsKey(channel.tableBucketName()) && !s3Tables(unlisted);
    }

    /**
     * Whether the channel's bucket is in Amazon S3 Tables (its REST endpoint on amazonaws.com), which maintains its
     * tables itself. Another catalog named with type s3tables (a local endpoint) is maintained as any other.
     */
    public boolean maintainsItsTables(Channel channel) {
        Map<String, String> properties = bucketProperties(channel);
        return CatalogUtil.ICEBERG_CATALOG_TYPE_REST.equals(properties.get(CatalogUtil.ICEBERG_CATALOG_TYPE))
                && AWS_S3_TABLES.matcher(properties.getOrDefault(CatalogProperties.URI, "")).matches();
    }

    /**
     * A channel's table as one table for every channel that names it: its catalog (a digest of the bucket's catalog
     * properties, which may hold secrets) and its identifier. Buckets sharing a catalog share their tables' keys.
     */
    public String tableKey(Channel channel) {
        byte[] digest;
        try {
            digest = MessageDigest.getInstance("SHA-256").digest(
                    new TreeMap<>(bucketProperties(channel)).toString().getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e); // every JVM has SHA-256
        }
        return "catalog-" + HexFormat.of().formatHex(digest, 0, 16) + "/" + channel.table();
    }

    /**
     * Where and as whom the channel's table is created through S3 Tables' own API, when its bucket is an S3 Tables
     * one ({@code type s3tables}); else empty.
     */
    public Optional<S3TablesControl> s3TablesControl(Channel channel) {
        Map<String, String> entry = entries.getOrDefault(channel.tableBucketName(), unlisted);
        if (!s3Tables(entry)) {
            return Optional.empty();
        }
        Map<String, String> properties = bucketProperties(channel);
        String region = properties.get(SIGNING_REGION);
        String key = properties.get(ACCESS_KEY_ID);
        String secret = properties.get(SECRET_ACCESS_KEY);
        S3TablesControl.Keys keys = key == null || secret == null ? null
                : new S3TablesControl.Keys(key, secret, properties.get(SESSION_TOKEN));
        return Optional.of(new S3TablesControl(URI.create(entry.getOrDefault(S3_TABLES_ENDPOINT,
                "https://s3tables." + region + ".amazonaws.com")), region, keys));
    }

    Map<String, String> bucketProperties(Channel channel) {
        return byBucket.computeIfAbsent(channel.tableBucketArn(), arn ->
                properties(entries.getOrDefault(channel.tableBucketName(), unlisted), arn, sseHeaders));
    }

    private static boolean s3Tables(Map<String, String> properties) {
        return S3_TABLES.equals(properties.get(CatalogUtil.ICEBERG_CATALOG_TYPE));
    }

    /** The catalog of these properties, remembered as used by the channel (before it is looked up: see forget). */
    private Catalog catalog(Channel channel, Map<String, String> properties) {
        synchronized (used) {
            used.computeIfAbsent(channel.arn(), arn -> new Used(channel.tableBucketArn(), new HashSet<>()))
                    .properties().add(properties);
        }
        return catalog(properties);
    }

    private Catalog catalog(Map<String, String> properties) {
        return byProperties.computeIfAbsent(properties, p -> ConcurrentDdl.run(() -> buildOnce(p, this::pool)));
    }

    /** The pool of the database {@code properties} name: its URI and connection settings ({@code jdbc.*}). */
    private JdbcClientPool pool(Map<String, String> properties) {
        Map<String, String> connection = new TreeMap<>();
        properties.forEach((k, v) -> {
            if (k.equals(CatalogProperties.URI) || k.equals(CatalogProperties.CLIENT_POOL_SIZE) || k.startsWith("jdbc.")) {
                connection.put(k, v);
            }
        });
        return pools.computeIfAbsent(connection, c -> new SharedJdbcPool(c.get(CatalogProperties.URI), properties));
    }

    /** A pool the catalogs of one database share: closing one of them leaves it open; {@link #close()} closes it. */
    private static final class SharedJdbcPool extends JdbcClientPool {
        SharedJdbcPool(String uri, Map<String, String> properties) {
            super(uri, properties);
        }

        @Override
        public void close() {
            // the other catalogs of the database use it still
        }

        void release() {
            super.close();
        }
    }

    /**
     * A table bucket's entry with its defaults; {@code type=s3tables} becomes the REST catalog of S3 Tables in the
     * bucket's Region, with the bucket ARN as warehouse, unless the entry sets them.
     *
     * @param bucketArn the channel's TableBucketARN, or null when none is known (readiness)
     */
    static Map<String, String> properties(Map<String, String> entry, String bucketArn, boolean sseHeaders) {
        Map<String, String> props = new TreeMap<>(entry);
        if (s3Tables(props)) {
            props.put(CatalogUtil.ICEBERG_CATALOG_TYPE, CatalogUtil.ICEBERG_CATALOG_TYPE_REST);
            if (bucketArn != null) {
                String region = bucketArn.split(":")[3];
                props.putIfAbsent(CatalogProperties.URI, "https://s3tables." + region + ".amazonaws.com/iceberg");
                props.putIfAbsent(CatalogProperties.WAREHOUSE_LOCATION, bucketArn);
                props.putIfAbsent(SIGNING_REGION, region);
            }
            props.putIfAbsent(AUTH_TYPE, "sigv4");
            props.putIfAbsent(SIGNING_NAME, S3_TABLES);
        }
        return withDefaults(props, sseHeaders);
    }

    /** A bucket's catalog properties with a channel's key and role; the same map when it needs neither. */
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

    /**
     * A catalog of its own (a JDBC one with its own pool). Instances that start at once on a new catalog database
     * race to create its tables (see ConcurrentDdl).
     */
    static Catalog build(Map<String, String> props) {
        return ConcurrentDdl.run(() -> buildOnce(props, null));
    }

    /**
     * Iceberg loads a FileIO by class name from its own class loader, which in Quarkus dev and test modes is not
     * the one of this module's classes: the local FileIO is handed over as an object instead.
     *
     * @param pools a JDBC catalog's connections, or null for a pool of its own
     */
    private static Catalog buildOnce(Map<String, String> props, Function<Map<String, String>, JdbcClientPool> pools) {
        if (CatalogUtil.ICEBERG_CATALOG_TYPE_JDBC.equals(props.get(CatalogUtil.ICEBERG_CATALOG_TYPE))) {
            boolean local = LocalFileIO.class.getName().equals(props.get(CatalogProperties.FILE_IO_IMPL));
            JdbcCatalog catalog = new JdbcCatalog(local ? p -> new LocalFileIO() : null, pools, true);
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
        if (CatalogUtil.ICEBERG_CATALOG_TYPE_REST.equals(props.get(CatalogUtil.ICEBERG_CATALOG_TYPE))) {
            // Iceberg's REST client waits for an answer for ever by default: a server that accepted the connection
            // and went silent held the commit tick of every channel
            props.putIfAbsent(REST_CONNECTION_TIMEOUT, "10000");
            props.putIfAbsent(REST_SOCKET_TIMEOUT, "60000");
            // the server names the tables' locations: S3, unless io-impl says otherwise
            props.putIfAbsent(CatalogProperties.FILE_IO_IMPL, S3_FILE_IO);
            if (S3_FILE_IO.equals(props.get(CatalogProperties.FILE_IO_IMPL))) {
                s3Defaults(props, sseHeaders);
            }
            return Map.copyOf(props);
        }
        if (CatalogUtil.ICEBERG_CATALOG_TYPE_JDBC.equals(props.get(CatalogUtil.ICEBERG_CATALOG_TYPE))) {
            props.putIfAbsent(CatalogProperties.URI, "jdbc:sqlite:data/catalog.db");
            props.putIfAbsent("jdbc.schema-version", "V1");
            if (props.get(CatalogProperties.URI).startsWith("jdbc:postgresql:")) {
                // a database that stops answering fails the catalog call in bounded time (pgjdbc: seconds); without
                // these, a half-open connection blocks the commit ticker of every channel for good
                props.putIfAbsent("jdbc.connectTimeout", "10");
                props.putIfAbsent("jdbc.loginTimeout", "10");
                props.putIfAbsent("jdbc.socketTimeout", "60");
                props.putIfAbsent("jdbc.tcpKeepAlive", "true");
            }
            if (props.get(CatalogProperties.URI).startsWith("jdbc:sqlite:")) {
                // SQLite takes one writer at a time
                props.putIfAbsent(CatalogProperties.CLIENT_POOL_SIZE, "1");
                Sqlite.createFolder(props.get(CatalogProperties.URI));
            }
        }
        String warehouse = props.computeIfAbsent(CatalogProperties.WAREHOUSE_LOCATION, k -> "data/warehouse");
        if (warehouse.startsWith("s3://") || warehouse.startsWith("s3a://")) {
            props.putIfAbsent(CatalogProperties.FILE_IO_IMPL, S3_FILE_IO);
            s3Defaults(props, sseHeaders);
        } else if (!warehouse.contains("://")) {
            props.put(CatalogProperties.WAREHOUSE_LOCATION, Path.of(warehouse.replaceFirst("^file:", ""))
                    .toAbsolutePath().normalize().toString());
            props.putIfAbsent(CatalogProperties.FILE_IO_IMPL, LocalFileIO.class.getName());
        }
        return Map.copyOf(props);
    }

    private static void s3Defaults(Map<String, String> props, boolean sseHeaders) {
        props.putIfAbsent("http-client.type", "urlconnection");
        AwsClients.closeAnswersCutShort(); // a URL-connection client too
        // SPEC E1: data and metadata files are encrypted at rest with SSE-S3 unless configured otherwise
        props.putIfAbsent(SSE_TYPE, sseHeaders ? "s3" : "none");
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
        pools.values().forEach(SharedJdbcPool::release);
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
