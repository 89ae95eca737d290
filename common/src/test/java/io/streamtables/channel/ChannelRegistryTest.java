package io.streamtables.channel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

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
        ChannelRegistry registry = new ChannelRegistry(TestDeliveryConfig.forAccount(TestChannels.ACCOUNT),
                config(AuthConfig.class), config(QuotaConfig.class), new ChannelStore(database.database()),
                new ObjectMapper(), new NoEvents());
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
