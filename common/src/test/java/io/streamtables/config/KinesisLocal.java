package io.streamtables.config;

import io.streamtables.channel.Arn;
import io.streamtables.channel.Channel;
import io.streamtables.channel.ChannelDefinition;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Assumptions;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.StreamStatus;

/** The kinesis-local peer of the ingest tests (scripts/peers.sh start): a client, a stream, a channel on it. */
public final class KinesisLocal {

    public static final String ENDPOINT = System.getenv().getOrDefault("KINESIS_ENDPOINT", "http://127.0.0.1:4568");

    private KinesisLocal() {
    }

    /** A client of kinesis-local; the test is skipped when it is not running. */
    public static KinesisClient client() {
        Assumptions.assumeTrue(answers(), "kinesis-local is not running (scripts/peers.sh start)");
        return KinesisClient.builder().endpointOverride(URI.create(ENDPOINT)).region(Region.US_EAST_1)
                .httpClientBuilder(AwsClients.httpClient().socketTimeout(Duration.ofMinutes(2)))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .build();
    }

    /** Creates the stream and waits until it is ACTIVE. */
    public static void createStream(KinesisClient kinesis, String streamName, int shardCount) throws InterruptedException {
        kinesis.createStream(r -> r.streamName(streamName).shardCount(shardCount));
        awaitActive(kinesis, streamName);
    }

    public static void awaitActive(KinesisClient kinesis, String streamName) throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            if (kinesis.describeStreamSummary(r -> r.streamName(streamName)).streamDescriptionSummary()
                    .streamStatus() == StreamStatus.ACTIVE) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError(streamName + " not ACTIVE in 10 s");
    }

    /** A JSON channel on the stream, freshness 1 s, no DLQ. */
    public static Channel channel(KinesisClient kinesis, String streamName) {
        String streamArn = kinesis.describeStreamSummary(r -> r.streamName(streamName)).streamDescriptionSummary()
                .streamARN();
        return new Channel("arn:aws:kinesis:us-east-1:000000000000:channel/" + streamName,
                new ChannelDefinition(streamName, null, null, null, null, null, null),
                Arn.parse("StreamARN", streamArn, "kinesis", "stream/", "arn:aws:kinesis:REGION:ACCOUNT:stream/NAME"),
                Channel.RecordFormat.JSON, null, 1, "NONE", TableIdentifier.of("leases", streamName), null, null,
                null, null, null);
    }

    public static void deleteStream(KinesisClient kinesis, String streamName) {
        try {
            kinesis.deleteStream(r -> r.streamName(streamName).enforceConsumerDeletion(true));
        } catch (RuntimeException e) {
            // the peer keeps it; a unique name avoids collisions
        }
        kinesis.close();
    }

    public static boolean answers() {
        URI uri = URI.create(ENDPOINT);
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 500);
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
