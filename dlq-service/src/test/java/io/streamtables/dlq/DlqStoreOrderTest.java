package io.streamtables.dlq;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.streamtables.bus.DlqAck;
import io.streamtables.bus.DlqBatch;
import io.streamtables.bus.ErrorCode;
import io.streamtables.bus.Reject;
import io.streamtables.bus.kafka.BusDeserializer;
import io.streamtables.bus.kafka.BusSerializer;
import io.streamtables.bus.kafka.ShardKeys;
import io.streamtables.channel.ChannelDefinition;
import io.streamtables.channel.ChannelRegistry;
import jakarta.inject.Inject;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Two batches of one dead-letter object key on the bus: dlq-service stores them in the order they were sent, and
 * each acknowledgement names the version it stored (key and last sequence number). The older one's PutObject is
 * held back ({@link HeldPuts}) until the newer one is stored: a stage that stored batches side by side would let
 * the older land last. (The commit stage publishes only committed cuts, so two batches of one key hold the same
 * entries in production; the order keeps a shard's objects in the order of its commits.)
 *
 * <p>On the real peers (scripts/peers.sh start): Kafka, with the producer settings of the stages
 * ({@link ShardKeys}: a batch is keyed by its object key), and S3Proxy.
 */
@QuarkusTest
@TestProfile(DlqStoreOrderTest.OwnTopics.class)
class DlqStoreOrderTest {

    static final String RUN = Long.toString(System.currentTimeMillis(), 36);

    /** Topics of this run only. */
    public static class OwnTopics implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("mp.messaging.incoming.dlq.topic", "dlq-order-" + RUN,
                    "mp.messaging.outgoing.dlq-acks.topic", "dlq-acks-order-" + RUN);
        }
    }

    @Inject
    ChannelRegistry channels;
    @Inject
    S3Client s3;
    @Inject
    ObjectMapper json;
    @ConfigProperty(name = "kafka.bootstrap.servers")
    String kafka;
    @ConfigProperty(name = "quarkus.s3.endpoint-override")
    String s3Endpoint;
    @ConfigProperty(name = "mp.messaging.incoming.dlq.topic")
    String dlqTopic;
    @ConfigProperty(name = "mp.messaging.outgoing.dlq-acks.topic")
    String acksTopic;

    @Test
    void twoVersionsOfOneObjectAreStoredInTheOrderTheyWereSent() throws Exception {
        Assumptions.assumeTrue(answers(URI.create("http://" + kafka)), "no Kafka at " + kafka + " (scripts/peers.sh start)");
        Assumptions.assumeTrue(answers(URI.create(s3Endpoint)), "no S3Proxy at " + s3Endpoint + " (scripts/peers.sh start)");
        String bucket = "dlq-order-" + RUN;
        s3.createBucket(b -> b.bucket(bucket));
        ChannelDefinition definition = json.readValue(channel("order-" + RUN, bucket), ChannelDefinition.class);
        channels.create(definition, "000000000000");
        String channelArn = channels.validate(definition, "000000000000").arn();

        String key = "errors/order/shardId-000000000000-1.jsonl";
        List<Reject> newer = IntStream.rangeClosed(1, 3).mapToObj(DlqStoreOrderTest::reject).toList();
        List<Reject> older = newer.subList(0, 1); // sent before a crash; the replay found two more
        HeldPuts.hold(key, older.size());
        try (KafkaConsumer<String, Object> acks = acksConsumer(); KafkaProducer<String, Object> bus = producer()) {
            acks.subscribe(List.of(acksTopic));
            DlqBatch olderBatch = new DlqBatch(channelArn, key, older);
            DlqBatch newerBatch = new DlqBatch(channelArn, key, newer);
            bus.send(new ProducerRecord<>(dlqTopic, olderBatch)).get();
            bus.send(new ProducerRecord<>(dlqTopic, newerBatch)).get();
            List<DlqAck> received = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (received.size() < 2 && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, Object> r : acks.poll(Duration.ofMillis(500))) {
                    received.add((DlqAck) r.value());
                }
            }
            assertEquals(List.of(DlqAck.stored(olderBatch), DlqAck.stored(newerBatch)), received,
                    "acks naming the two versions");
        }

        assertEquals(List.of(1, 3), HeldPuts.stored, "lines of the versions, in the order they landed");
        String object = s3.getObjectAsBytes(g -> g.bucket(bucket).key(key)).asString(StandardCharsets.UTF_8);
        List<String> sequenceNumbers = new ArrayList<>();
        for (String line : object.lines().toList()) {
            sequenceNumbers.add(json.readTree(line).get("sequenceNumber").asText());
        }
        assertEquals(newer.stream().map(Reject::sequenceNumber).toList(), sequenceNumbers,
                "the object holds the newer version");
    }

    private static Reject reject(int i) {
        return new Reject("arn:aws:kinesis:us-east-1:000000000000:stream/order", "shardId-000000000000",
                "4968070419569293068298601912701686723885889938869819801" + i, 1_764_000_000_000L + i,
                ErrorCode.SCHEMA_VALIDATION_FAILED, "required property 'id' is missing", "/id");
    }

    private KafkaProducer<String, Object> producer() {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, BusSerializer.class.getName(),
                ProducerConfig.INTERCEPTOR_CLASSES_CONFIG, ShardKeys.class.getName(),
                ProducerConfig.ACKS_CONFIG, "all"));
    }

    private KafkaConsumer<String, Object> acksConsumer() {
        return new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka,
                ConsumerConfig.GROUP_ID_CONFIG, "dlq-order-test-" + RUN,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, BusDeserializer.class.getName(),
                BusDeserializer.TYPE, DlqAck.class.getName()));
    }

    /** A channel of its own stream: the registry (target/test-delivery.db) outlives a run, two per stream. */
    private static String channel(String name, String bucket) {
        return """
                {"ChannelName": "%1$s",
                 "StreamConfigurationList": [{"StreamARN": "arn:aws:kinesis:us-east-1:000000000000:stream/%1$s",
                   "RecordConfiguration": {"RecordFormatType": "JSON",
                     "GSRSchemaARN": "arn:aws:glue:us-east-1:000000000000:schema/order/events"}}],
                 "S3TablesDestinationConfiguration": {
                   "DeadLetterQueueS3Configuration": {"BucketARN": "arn:aws:s3:::%2$s", "ExpectedBucketOwner": "000000000000"},
                   "S3TablesConfigurationList": [{"TableBucketARN": "arn:aws:s3tables:us-east-1:000000000000:bucket/order",
                     "Namespace": "order", "TableName": "events", "CompressionType": "ZSTD",
                     "PartitionSpec": {"PartitionFields": [{"Transform": "TIME_HOUR", "SourceName": "event_time"}]}}]}}
                """.formatted(name, bucket);
    }

    private static boolean answers(URI endpoint) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()), 500);
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
