package io.streamtables.state;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.PropertiesConfigSource;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * Activates the Quarkus datasource of the kind that {@code delivery.database-url} names, the other staying
 * inactive: a datasource's kind is fixed when the application is built, the service database's at start-up
 * (Quarkus's way to choose among datasources at run time).
 */
public class ServiceDatabaseSelection implements ConfigSourceFactory {

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        ConfigValue url = context.getValue("delivery.database-url");
        String kind = ServiceDatabase.kindOf(url.getValue());
        return List.of(new PropertiesConfigSource(Map.of(
                active(ServiceDatabase.SQLITE), String.valueOf(ServiceDatabase.SQLITE.equals(kind)),
                active(ServiceDatabase.POSTGRESQL), String.valueOf(ServiceDatabase.POSTGRESQL.equals(kind))),
                "service database selection", 150));
    }

    private static String active(String kind) {
        return "quarkus.datasource." + kind + ".active";
    }

    @Override
    public OptionalInt getPriority() {
        return OptionalInt.of(150);
    }
}
