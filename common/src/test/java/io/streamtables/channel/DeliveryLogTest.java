package io.streamtables.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.jdbc.UncheckedSQLException;
import org.junit.jupiter.api.Test;

class DeliveryLogTest {

    /**
     * A failure reaches a tenant's delivery log as its kind only: a catalog's error names the operator's database
     * host, its JDBC URL and the warehouse's path (before, COMMIT_FAILED and MAINTENANCE_FAILED carried the message).
     */
    @Test
    void aFailureTellsTheTenantItsKindAndNothingOfTheOperators() {
        RuntimeException e = new UncheckedSQLException(new SQLException("Connection to db.internal:5432 refused"),
                "Failed to connect: jdbc:postgresql://db.internal:5432/catalog (warehouse /srv/warehouse/ns/t)");
        List<ObjectNode> lines = new ArrayList<>();
        DeliveryLog.Observer observer = (event, line) -> lines.add(line);
        DeliveryLog.observe(observer);
        try {
            DeliveryLog.log(TestChannels.of("tenant", "/aws/kinesis/tenant", "DestinationDelivery"), DeliveryLog.Event.COMMIT_FAILED,
                    Map.of("error", DeliveryLog.failure(e)));
        } finally {
            DeliveryLog.unobserve(observer);
        }
        String error = lines.get(0).get("error").asText();
        assertEquals("UncheckedSQLException (the cause is in the service's own log, for its operator)", error);
        for (String operators : List.of("db.internal", "jdbc:", "5432", "/srv/warehouse")) {
            assertFalse(lines.get(0).toString().contains(operators), lines.get(0).toString());
        }
    }
}
