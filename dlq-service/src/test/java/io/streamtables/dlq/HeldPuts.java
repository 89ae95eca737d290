package io.streamtables.dlq;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttribute;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * An interceptor of the stage's own S3 client (quarkus.s3.interceptors) that holds back the PutObject of one
 * version of an object (told apart by its number of lines) until another version of it is stored, or until
 * {@link #MAX_HOLD_MS} pass. A stage that stores one batch at a time never starts the other meanwhile; one that
 * stores side by side lets the held, older version land last. It records the order in which versions landed.
 */
public class HeldPuts implements ExecutionInterceptor {

    static final long MAX_HOLD_MS = 5_000;
    private static final ExecutionAttribute<Integer> LINES = new ExecutionAttribute<>("dlq-test-lines");

    private static volatile String key;
    private static volatile int heldLines;
    private static volatile CountDownLatch otherStored = new CountDownLatch(0);
    /** The line counts of the versions of the key, in the order their PutObject returned. */
    static final List<Integer> stored = new CopyOnWriteArrayList<>();

    static void hold(String objectKey, int lines) {
        stored.clear();
        otherStored = new CountDownLatch(1);
        heldLines = lines;
        key = objectKey;
    }

    @Override
    public void afterMarshalling(Context.AfterMarshalling context, ExecutionAttributes attributes) {
        // the body as the stage gave it, before signing and checksums wrap it
        if (context.request() instanceof PutObjectRequest put && put.key().equals(key)) {
            context.requestBody().ifPresent(body -> attributes.putAttribute(LINES, lines(body.contentStreamProvider()
                    .newStream())));
        }
    }

    @Override
    public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
        if (Integer.valueOf(heldLines).equals(attributes.getAttribute(LINES))) {
            try {
                otherStored.await(MAX_HOLD_MS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
        Integer lines = attributes.getAttribute(LINES);
        if (lines != null) {
            stored.add(lines);
            if (lines != heldLines) {
                otherStored.countDown();
            }
        }
    }

    private static int lines(InputStream in) {
        try (in) {
            int n = 0;
            for (int b; (b = in.read()) >= 0; ) {
                n += b == '\n' ? 1 : 0;
            }
            return n;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
