package io.streamtables.commit;

import io.streamtables.health.Probe;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** The Iceberg catalog answers (its database, for a JDBC catalog). */
@Readiness
@ApplicationScoped
public class CatalogReadiness implements HealthCheck {

    private final Catalog catalog;

    public CatalogReadiness(Catalog catalog) {
        this.catalog = catalog;
    }

    @Override
    public HealthCheckResponse call() {
        return Probe.of("iceberg catalog", "check delivery.catalog.* (uri, credentials) and that the catalog runs",
                () -> catalog instanceof SupportsNamespaces n ? n.listNamespaces(Namespace.empty())
                        : catalog.listTables(Namespace.empty()));
    }
}
