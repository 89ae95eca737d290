package io.streamtables.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtables.config.AuthConfig;
import io.streamtables.config.QuotaConfig;
import io.streamtables.config.TestDeliveryConfig;
import io.streamtables.state.ChannelStore;
import io.streamtables.state.TestDatabase;
import jakarta.enterprise.event.Event;
import jakarta.enterprise.event.NotificationOptions;
import jakarta.enterprise.util.TypeLiteral;
import java.lang.annotation.Annotation;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ChannelRegistryTest {

    private TestDatabase database;

    @AfterEach
    void close() {
        if (database != null) {
            database.close();
        }
    }

    /**
     * Every stage reads every channel every second: a definition read again unchanged is not parsed again (the same
     * Channel comes back), and an updated one is.
     */
    @Test
    void aChannelReadAgainUnchangedIsNotParsedAgainAndAnUpdatedOneIs() throws Exception {
        database = TestDatabase.open("jdbc:sqlite:" + Files.createTempDirectory("registry").resolve("delivery.db"));
        ChannelRegistry registry = registry(new ChannelStore(database.database()));
        Channel a = TestChannels.of("a", null, null);
        registry.create(a.definition(), TestChannels.ACCOUNT);
        Channel first = registry.get(a.arn()).orElseThrow().channel();

        registry.create(TestChannels.of("b", null, null).definition(), TestChannels.ACCOUNT); // reads all again
        assertSame(first, registry.get(a.arn()).orElseThrow().channel(), "not parsed again");

        registry.update(a.arn(), 60, null);
        Channel updated = registry.get(a.arn()).orElseThrow().channel();
        assertNotSame(first, updated);
        assertEquals(60, updated.freshnessSeconds());
        assertEquals(2, registry.all().size());
    }

    /**
     * Another process reads the rows again only once a channel changed: every stage of every process reading every
     * row every second would be most of an idle instance's work with a thousand channels.
     */
    @Test
    void anotherProcessReadsTheRowsAgainOnlyWhenAChannelChanged() throws Exception {
        database = TestDatabase.open("jdbc:sqlite:" + Files.createTempDirectory("registry").resolve("delivery.db"));
        AtomicInteger reads = new AtomicInteger();
        ChannelStore counted = new ChannelStore(database.database()) {
            @Override
            public List<Row> all() {
                reads.incrementAndGet();
                return super.all();
            }
        };
        ChannelRegistry reader = registry(counted);
        ChannelRegistry writer = registry(new ChannelStore(database.database()));
        Channel a = TestChannels.of("a", null, null);
        writer.create(a.definition(), TestChannels.ACCOUNT);

        Thread.sleep(ChannelRegistry.REFRESH_MS + 100);
        assertTrue(reader.get(a.arn()).isPresent(), "the new channel is read");
        int afterCreate = reads.get();
        Thread.sleep(ChannelRegistry.REFRESH_MS + 100);
        long refreshing = System.currentTimeMillis();
        assertTrue(reader.get(a.arn()).isPresent());
        assertEquals(afterCreate, reads.get(), "nothing changed: the rows are not read again");
        assertTrue(counted.readByAll(refreshing).isPresent(), "the reader still records that it read them");

        writer.update(a.arn(), 60, null);
        Thread.sleep(ChannelRegistry.REFRESH_MS + 100);
        assertEquals(60, reader.get(a.arn()).orElseThrow().channel().freshnessSeconds(), "the update is read");
        assertEquals(afterCreate + 1, reads.get());
    }

    /** The shard readers find the view stale at once each second: one of them refreshes it, not each in turn. */
    @Test
    void threadsThatFindTheViewStaleTogetherRefreshItOnce() throws Exception {
        database = TestDatabase.open("jdbc:sqlite:" + Files.createTempDirectory("registry").resolve("delivery.db"));
        AtomicInteger looks = new AtomicInteger();
        ChannelStore slow = new ChannelStore(database.database()) {
            @Override
            public long changes() {
                looks.incrementAndGet();
                try {
                    Thread.sleep(100); // a database far away: the other threads wait for the lock meanwhile
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return super.changes();
            }
        };
        ChannelRegistry registry = registry(slow);
        Thread.sleep(ChannelRegistry.REFRESH_MS + 100);
        int before = looks.get();
        int threads = 8;
        CyclicBarrier together = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> asked = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                asked.add(pool.submit(() -> {
                    together.await();
                    return registry.get("arn:aws:kinesis:us-east-1:000000000000:channel/none");
                }));
            }
            for (Future<?> f : asked) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(before + 1, looks.get(), "eight threads, one refresh");
    }

    private ChannelRegistry registry(ChannelStore store) {
        return new ChannelRegistry(TestDeliveryConfig.forAccount(TestChannels.ACCOUNT), config(AuthConfig.class),
                config(QuotaConfig.class), store, new ObjectMapper(), new NoEvents());
    }

    /** A configuration mapping with no setting: its defaults (false, 1 000). */
    private static <T> T config(Class<T> type) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) ->
                method.getReturnType() == boolean.class ? false : method.getReturnType() == int.class ? 1_000 : null));
    }

    private static final class NoEvents implements Event<ChannelGone> {
        @Override
        public void fire(ChannelGone event) {
        }

        @Override
        public <U extends ChannelGone> CompletionStage<U> fireAsync(U event) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <U extends ChannelGone> CompletionStage<U> fireAsync(U event, NotificationOptions options) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Event<ChannelGone> select(Annotation... qualifiers) {
            return this;
        }

        @Override
        public <U extends ChannelGone> Event<U> select(Class<U> subtype, Annotation... qualifiers) {
            throw new UnsupportedOperationException();
        }

        @Override
        public <U extends ChannelGone> Event<U> select(TypeLiteral<U> subtype, Annotation... qualifiers) {
            throw new UnsupportedOperationException();
        }
    }
}
