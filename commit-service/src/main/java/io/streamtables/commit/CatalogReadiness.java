package io.streamtables.commit;

import io.streamtables.catalog.Catalogs;
import io.streamtables.health.Probe;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Every catalog the operator configured answers (its database, for a JDBC catalog). */
@Readiness
@ApplicationScoped
public class CatalogReadiness implements HealthCheck {

    private final Catalogs catalogs;

    public CatalogReadiness(Catalogs catalogs) {
        this.catalogs = catalogs;
    }

    @Override
    public HealthCheckResponse call() {
        return Probe.of("iceberg catalog", "check the named catalog's settings (uri, credentials) and that it runs",
                () -> {
                    for (Map.Entry<String, Supplier<Catalog>> configured : catalogs.configured().entrySet()) {
                        try {
                            Catalog catalog = configured.getValue().get();
                            if (catalog instanceof SupportsNamespaces namespaces) {
                                namespaces.listNamespaces(Namespace.empty());
                            } else {
                                catalog.listTables(Namespace.empty());
                            }
                        } catch (RuntimeException e) {
                            throw new IllegalStateException(configured.getKey() + ".*: " + e.getMessage(), e);
                        }
                    }
                    return null;
                });
    }
}
