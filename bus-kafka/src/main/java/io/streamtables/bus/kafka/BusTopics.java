package io.streamtables.bus.kafka;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.jboss.logging.Logger;

/**
 * Provisions the bus's topics before a process's first Kafka client uses them: a missing topic is created with the
 * message size the bus sends ({@code max.message.bytes} = the producers' {@code max.request.size}), and an existing
 * one that takes less is raised. A topic the broker creates on first use would take the broker's default, 1 MiB
 * unless set, and refuse a chunk of records. Partitions and replication are the broker's defaults
 * ({@code num.partitions}, {@code default.replication.factor}); create the topics yourself to choose them.
 */
final class BusTopics {

    private static final Logger LOG = Logger.getLogger(BusTopics.class);
    static final String MAX_MESSAGE_BYTES = TopicConfig.MAX_MESSAGE_BYTES_CONFIG;
    /** Every admin call's bound: a broker that does not answer delays a start by this much, once. */
    private static final int TIMEOUT_MS = 10_000;

    enum Outcome {
        CREATED, RAISED, KEPT, FAILED,
        /** Provisioned before by this process, or not tried after no broker answered. */
        SKIPPED
    }

    private final Set<String> done = ConcurrentHashMap.newKeySet();
    private volatile boolean unreachable;

    /**
     * Makes sure {@code topic} exists and takes messages of {@code maxMessageBytes}, once per topic and process,
     * through an admin client made from a client's configuration (its bootstrap servers and security settings).
     */
    Outcome provision(String topic, int maxMessageBytes, Map<String, Object> clientConfig) {
        if (unreachable || !done.add(topic)) {
            return Outcome.SKIPPED;
        }
        Map<String, Object> config = new HashMap<>();
        clientConfig.forEach((key, value) -> {
            if (AdminClientConfig.configNames().contains(key)) {
                config.put(key, value);
            }
        });
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, "bus-topics");
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, TIMEOUT_MS);
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, TIMEOUT_MS);
        try (Admin admin = Admin.create(config)) {
            return ensure(admin, topic, maxMessageBytes);
        } catch (TimeoutException e) {
            unreachable = true;
            warn(topic, maxMessageBytes, e);
        } catch (ExecutionException e) {
            // no broker answers yet: the other topics would wait as long, the clients retry on their own
            unreachable = e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException;
            warn(topic, maxMessageBytes, e.getCause());
        } catch (RuntimeException e) {
            warn(topic, maxMessageBytes, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return Outcome.FAILED;
    }

    private static void warn(String topic, int maxMessageBytes, Throwable cause) {
        LOG.warnf("Could not provision the bus topic %s (%s: %s): create it with %s of at least %d, or chunks of "
                        + "records larger than the broker's default will be refused", topic,
                cause.getClass().getSimpleName(), cause.getMessage(), MAX_MESSAGE_BYTES, maxMessageBytes);
    }

    private static Outcome ensure(Admin admin, String topic, int maxMessageBytes)
            throws ExecutionException, InterruptedException, TimeoutException {
        String wanted = Integer.toString(maxMessageBytes);
        try {
            admin.createTopics(List.of(new NewTopic(topic, Optional.empty(), Optional.empty())
                    .configs(Map.of(MAX_MESSAGE_BYTES, wanted)))).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            LOG.infof("Created the bus topic %s (%s=%s)", topic, MAX_MESSAGE_BYTES, wanted);
            return Outcome.CREATED;
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        ConfigEntry current = admin.describeConfigs(List.of(resource)).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS)
                .get(resource).get(MAX_MESSAGE_BYTES);
        if (Long.parseLong(current.value()) < maxMessageBytes) {
            admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(
                    new ConfigEntry(MAX_MESSAGE_BYTES, wanted), AlterConfigOp.OpType.SET))))
                    .all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            LOG.infof("Raised %s of the bus topic %s from %s to %s", MAX_MESSAGE_BYTES, topic, current.value(), wanted);
            return Outcome.RAISED;
        }
        return Outcome.KEPT;
    }
}
