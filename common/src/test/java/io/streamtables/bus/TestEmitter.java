package io.streamtables.bus;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.eclipse.microprofile.reactive.messaging.Emitter;
import org.eclipse.microprofile.reactive.messaging.Message;

/** The bus as an emitter sees it: each send recorded, and answered by {@code answer} (acceptance or refusal). */
public final class TestEmitter<T> implements Emitter<T> {

    public final List<T> sent = new CopyOnWriteArrayList<>();
    private final Function<T, CompletionStage<Void>> answer;

    public TestEmitter(Function<T, CompletionStage<Void>> answer) {
        this.answer = answer;
    }

    /** Takes every message. */
    public static <T> TestEmitter<T> accepting() {
        return new TestEmitter<>(m -> CompletableFuture.completedFuture(null));
    }

    @Override
    public CompletionStage<Void> send(T message) {
        sent.add(message);
        return answer.apply(message);
    }

    @Override
    public <M extends Message<? extends T>> void send(M message) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void complete() {
    }

    @Override
    public void error(Exception e) {
    }

    @Override
    public boolean isCancelled() {
        return false;
    }

    @Override
    public boolean hasRequests() {
        return true;
    }
}
